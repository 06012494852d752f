import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { boardOptions, taskdAll, taskdRequest } from './transport';

const taskId: INodeProperties = {
	displayName: 'Task ID',
	name: 'taskId',
	type: 'string',
	default: '',
	required: true,
	description: 'The record ID of the task, not its key such as LCH-12',
};

const show = (resource: string, operation: string[]) => ({
	show: { resource: [resource], operation },
});

const priorityOptions = [
	{ name: 'None', value: 0 },
	{ name: 'Low', value: 1 },
	{ name: 'Medium', value: 2 },
	{ name: 'High', value: 3 },
	{ name: 'Urgent', value: 4 },
];

/** Fields a task create or update may set. */
const taskFields: INodeProperties[] = [
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		description: 'Markdown',
	},
	{
		displayName: 'Due Date',
		name: 'due_date',
		type: 'dateTime',
		typeOptions: { dateOnly: true },
		default: '',
	},
	{
		displayName: 'Milestone Name or ID',
		name: 'milestone',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getMilestones', loadOptionsDependsOn: ['boardId'] },
		default: '',
		description:
			'A milestone of the task’s board. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'Priority',
		name: 'priority',
		type: 'options',
		options: priorityOptions,
		default: 0,
	},
	{
		displayName: 'Start Date',
		name: 'start_date',
		type: 'dateTime',
		typeOptions: { dateOnly: true },
		default: '',
	},
	{
		displayName: 'Status Name or ID',
		name: 'status',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getStatuses', loadOptionsDependsOn: ['boardId'] },
		default: '',
		description:
			'A status of the task’s board: the task goes to the board’s first list with that status. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'Custom Fields (JSON)',
		name: 'xattr',
		type: 'json',
		default: '{}',
		description:
			'Custom field values by field key, e.g. {"estimate": 3, "labels": ["Bug"]}; null clears one. A select takes an option ID or name.',
	},
];

/** The board chosen on the node, when the operation has one (update has none: then every visible board's). */
function chosenBoard(this: ILoadOptionsFunctions): string {
	try {
		return (this.getCurrentNodeParameter('boardId') as string | undefined) ?? '';
	} catch {
		return '';
	}
}

/** Records of a board (or of every visible board), named with their board's name when across boards. */
async function boardScoped(this: ILoadOptionsFunctions, path: string): Promise<INodePropertyOptions[]> {
	const board = chosenBoard.call(this);
	const rows = await taskdAll.call(this, path, board ? { board } : { expand: 'board' });
	return rows.map((r) => {
		const boardName = ((r.expand as IDataObject | undefined)?.board as IDataObject | undefined)?.name;
		return { name: boardName ? `${String(boardName)}: ${String(r.name)}` : String(r.name), value: String(r.id) };
	});
}

export class Taskd implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Taskd',
		name: 'taskd',
		icon: { light: 'file:../../icons/taskd.svg', dark: 'file:../../icons/taskd.dark.svg' },
		group: ['transform'],
		version: [1],
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Work with tasks, comments, notes, timers, agents and incoming endpoints in taskd',
		defaults: { name: 'Taskd' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'taskdApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Agent', value: 'agent' },
					{ name: 'Comment', value: 'comment' },
					{ name: 'Note', value: 'note' },
					{ name: 'Task', value: 'task' },
					{ name: 'Timer', value: 'timer' },
					{ name: 'Workflow', value: 'workflow' },
				],
				default: 'task',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['task'] } },
				options: [
					{
						name: 'Complete',
						value: 'complete',
						action: 'Complete a task',
						description: 'Mark a task completed or reopen it',
					},
					{ name: 'Create', value: 'create', action: 'Create a task' },
					{ name: 'Get', value: 'get', action: 'Get a task' },
					{
						name: 'Move',
						value: 'move',
						action: 'Move a task',
						description: 'Move a task to a list, possibly on another board',
					},
					{
						name: 'Search',
						value: 'search',
						action: 'Search tasks',
						description: 'Find tasks by text (ranked, with snippets), or list tasks matching a filter',
					},
					{ name: 'Update', value: 'update', action: 'Update a task' },
				],
				default: 'create',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['comment'] } },
				options: [
					{ name: 'Add', value: 'add', action: 'Add a comment', description: 'Comment on a task' },
				],
				default: 'add',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['note'] } },
				options: [{ name: 'Create', value: 'create', action: 'Create a note' }],
				default: 'create',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['timer'] } },
				options: [
					{
						name: 'Start',
						value: 'start',
						action: 'Start a timer',
						description: 'Start your timer on a task',
					},
					{
						name: 'Stop',
						value: 'stop',
						action: 'Stop the timer',
						description: 'Stop your running timer',
					},
				],
				default: 'start',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['agent'] } },
				options: [
					{
						name: 'Kick Off',
						value: 'kickOff',
						action: 'Kick off an agent',
						description: "Hand a task to an AI agent that is a member of the task's board",
					},
				],
				default: 'kickOff',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['workflow'] } },
				options: [
					{
						name: 'Trigger',
						value: 'trigger',
						action: 'Trigger an incoming endpoint',
						description: 'Start the automations of an incoming endpoint, as the credential’s user',
					},
				],
				default: 'trigger',
			},

			// Task: Create
			{
				displayName: 'Board Name or ID',
				name: 'boardId',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getBoards' },
				default: '',
				required: true,
				displayOptions: show('task', ['create', 'move']),
				description:
					'The board. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Title',
				name: 'title',
				type: 'string',
				default: '',
				required: true,
				displayOptions: show('task', ['create']),
			},
			{
				displayName: 'Additional Fields',
				name: 'additionalFields',
				type: 'collection',
				placeholder: 'Add Field',
				default: {},
				displayOptions: show('task', ['create']),
				options: [
					...taskFields,
					{
						displayName: 'Idempotency Key',
						name: 'idempotency_key',
						type: 'string',
						default: '',
						description:
							'A retry with the same key on the board returns the task made first instead of a second one',
					},
					{
						displayName: 'List Name or ID',
						name: 'list',
						type: 'options',
						typeOptions: { loadOptionsMethod: 'getLists', loadOptionsDependsOn: ['boardId'] },
						default: '',
						description:
							'Default: the board’s first list. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
				],
			},

			// Task: Update, Move, Complete, Get; Comment: Add; Timer: Start; Agent: Kick Off
			{ ...taskId, displayOptions: show('task', ['update', 'move', 'complete', 'get']) },
			{ ...taskId, displayOptions: show('comment', ['add']) },
			{ ...taskId, displayOptions: show('timer', ['start']) },
			{ ...taskId, displayOptions: show('agent', ['kickOff']) },
			{
				displayName: 'Update Fields',
				name: 'updateFields',
				type: 'collection',
				placeholder: 'Add Field',
				default: {},
				displayOptions: show('task', ['update']),
				options: [
					...taskFields,
					{ displayName: 'Archived', name: 'archived', type: 'boolean', default: false },
					{ displayName: 'Title', name: 'title', type: 'string', default: '' },
				],
			},
			{
				displayName: 'List Name or ID',
				name: 'listId',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getLists', loadOptionsDependsOn: ['boardId'] },
				default: '',
				required: true,
				displayOptions: show('task', ['move']),
				description:
					'The list to move the task to, on the board above. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Completed',
				name: 'completed',
				type: 'boolean',
				default: true,
				displayOptions: show('task', ['complete']),
				description: 'Whether the task is completed; off reopens it',
			},

			// Task: Search
			{
				displayName: 'Text',
				name: 'searchText',
				type: 'string',
				default: '',
				placeholder: 'deplo* "release notes"',
				displayOptions: show('task', ['search']),
				description:
					'Words to look for in task titles and descriptions (full-text search, best match first): every word must match, "quoted phrases" match in order, a trailing * matches a prefix. Each result has a type, ID, title, snippet (the matches between « and »), card, board and score. Leave empty to list tasks by Filter and Sort instead.',
			},
			{
				displayName: 'Filter',
				name: 'filter',
				type: 'string',
				default: '',
				placeholder: 'priority >= 3 && tags ~ "bug"',
				displayOptions: show('task', ['search']),
				description:
					'A taskd filter expression: comparisons (= != > >= < <= ~ !~) joined by && and ||, with parentheses and !. Quote text in double quotes. Used when Text is empty.',
				hint: 'Examples: title ~ "report" || description ~ "report", due_date < "2026-12-01" && state = "started"',
			},
			{
				displayName: 'Board Name or ID',
				name: 'searchBoardId',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getBoardsOrAll' },
				default: '',
				displayOptions: show('task', ['search']),
				description:
					'Only tasks of this board. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Sort',
				name: 'sort',
				type: 'string',
				default: '',
				placeholder: '-created,title',
				displayOptions: show('task', ['search']),
				description:
					'Comma-separated fields, a leading - for descending. Default: position, then created. Used when Text is empty (text results come best first).',
			},
			{
				displayName: 'Return All',
				name: 'returnAll',
				type: 'boolean',
				default: false,
				displayOptions: show('task', ['search']),
				description: 'Whether to return all results or only up to a given limit',
			},
			{
				displayName: 'Limit',
				name: 'limit',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 50,
				displayOptions: { show: { resource: ['task'], operation: ['search'], returnAll: [false] } },
				description: 'Max number of results to return',
			},

			// Comment: Add
			{
				displayName: 'Comment',
				name: 'body',
				type: 'string',
				typeOptions: { rows: 4 },
				default: '',
				required: true,
				displayOptions: show('comment', ['add']),
				description: 'Markdown. @name mentions a board member.',
			},

			// Note: Create
			{
				displayName: 'Title',
				name: 'noteTitle',
				type: 'string',
				default: '',
				required: true,
				displayOptions: show('note', ['create']),
			},
			{
				displayName: 'Body',
				name: 'noteBody',
				type: 'string',
				typeOptions: { rows: 6 },
				default: '',
				displayOptions: show('note', ['create']),
				description: 'Markdown',
			},
			{
				displayName: 'Additional Fields',
				name: 'noteFields',
				type: 'collection',
				placeholder: 'Add Field',
				default: {},
				displayOptions: show('note', ['create']),
				options: [
					{
						displayName: 'Board Name or ID',
						name: 'board',
						type: 'options',
						typeOptions: { loadOptionsMethod: 'getBoards' },
						default: '',
						description:
							'Its members see the note; without a board or task only you do. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					{
						displayName: 'Task ID',
						name: 'card',
						type: 'string',
						default: '',
						description: 'The record ID of a task the note is about',
					},
				],
			},

			// Timer: Start
			{
				displayName: 'Note',
				name: 'timerNote',
				type: 'string',
				default: '',
				displayOptions: show('timer', ['start']),
				description: 'What the time is for',
			},

			// Agent: Kick Off
			{
				displayName: 'Agent Name or ID',
				name: 'agentId',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getAgents' },
				default: '',
				displayOptions: show('agent', ['kickOff']),
				description:
					'An agent that is a member of the task’s board; leave empty to use the workflow. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Agent Workflow Name or ID',
				name: 'agentWorkflowId',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getAgentWorkflows' },
				default: '',
				displayOptions: show('agent', ['kickOff']),
				description:
					'Leave both empty to use the board’s default agent workflow. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Options',
				name: 'kickoffOptions',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				displayOptions: show('agent', ['kickOff']),
				options: [
					{
						displayName: 'Effort',
						name: 'effort',
						type: 'options',
						options: [
							{ name: 'Low', value: 'low' },
							{ name: 'Medium', value: 'medium' },
							{ name: 'High', value: 'high' },
							{ name: 'Max', value: 'max' },
						],
						default: 'medium',
						description:
							'A hint for an agent on its owner’s desktop; some values apply only to some agent kinds',
					},
					{
						displayName: 'Message',
						name: 'message',
						type: 'string',
						typeOptions: { rows: 3 },
						default: '',
						description: 'What to tell the agent',
					},
					{
						displayName: 'Model',
						name: 'model',
						type: 'string',
						default: '',
						description:
							'A hint for an agent on its owner’s desktop; a runner behind a wake URL picks its own',
					},
					{
						displayName: 'Powers',
						name: 'powers',
						type: 'multiOptions',
						options: [
							{
								name: 'Auto-Start',
								value: 'auto_start',
								description: 'The agent’s own runner, called at its wake URL',
							},
							{
								name: 'Local Access',
								value: 'local_access',
								description: 'The desktop app of the agent’s owner',
							},
							{
								name: 'Service AI',
								value: 'service_ai',
								description: 'A workspace AI turn as the agent',
							},
						],
						default: [],
						description: 'Narrows delivery to these; empty: any power the agent has',
					},
				],
			},

			// Workflow: Trigger
			{
				displayName: 'Incoming Endpoint Name or ID',
				name: 'endpointId',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getIncomingEndpoints' },
				default: '',
				required: true,
				displayOptions: show('workflow', ['trigger']),
				description:
					'The endpoint whose automations run. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Body',
				name: 'payload',
				type: 'json',
				default: '{}',
				displayOptions: show('workflow', ['trigger']),
				description: 'A JSON object, seen by the automations as webhook.body',
			},
		],
	};

	methods = {
		loadOptions: {
			getBoards: boardOptions,
			async getBoardsOrAll(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				return [{ name: 'All Boards', value: '' }, ...(await boardOptions.call(this))];
			},
			async getLists(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const board = this.getCurrentNodeParameter('boardId') as string;
				if (!board) return [];
				const lists = await taskdAll.call(this, '/v1/lists', { board });
				return lists.map((l) => ({ name: String(l.name), value: String(l.id) }));
			},
			async getMilestones(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				return boardScoped.call(this, '/v1/milestones');
			},
			async getStatuses(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				return boardScoped.call(this, '/v1/board-statuses');
			},
			async getAgents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const agents = await taskdAll.call(this, '/v1/users', {
					filter: 'kind = "agent"',
					sort: 'name',
				});
				return [
					{ name: '(Use the Workflow)', value: '' },
					...agents.map((a) => ({ name: String(a.name), value: String(a.id) })),
				];
			},
			async getAgentWorkflows(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const workflows = await taskdAll.call(this, '/v1/agent-workflows', { sort: 'name' });
				return [
					{ name: '(Board Default)', value: '' },
					...workflows.map((w) => ({ name: String(w.name), value: String(w.id) })),
				];
			},
			async getIncomingEndpoints(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const endpoints = await taskdAll.call(this, '/v1/webhooks/incoming');
				return endpoints.map((e) => ({ name: String(e.name), value: String(e.id) }));
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const resource = this.getNodeParameter('resource', i) as string;
			const operation = this.getNodeParameter('operation', i) as string;
			let results: IDataObject[];
			if (this.continueOnFail()) {
				try {
					results = await run.call(this, resource, operation, i);
				} catch (error) {
					out.push({ json: { error: (error as Error).message }, error, pairedItem: { item: i } });
					continue;
				}
			} else results = await run.call(this, resource, operation, i);
			for (const json of results) out.push({ json, pairedItem: { item: i } });
		}
		return [out];
	}
}

/**
 * Drops empty optional values (n8n's defaults) so taskd sees only what the user set; custom field values given as JSON
 * text are sent as the object they spell (an empty object is left out).
 */
function given(fields: IDataObject): IDataObject {
	const out = Object.fromEntries(
		Object.entries(fields).filter(([, v]) => v !== '' && v !== undefined && v !== null),
	);
	if (typeof out.xattr === 'string') {
		// Text that is no JSON is sent as it is: taskd's 422 then says what xattr must be.
		try {
			out.xattr = JSON.parse(out.xattr) as IDataObject;
		} catch {
			// left as text
		}
	}
	if (
		out.xattr !== undefined &&
		typeof out.xattr === 'object' &&
		Object.keys(out.xattr as object).length === 0
	)
		delete out.xattr;
	return out;
}

async function run(
	this: IExecuteFunctions,
	resource: string,
	operation: string,
	i: number,
): Promise<IDataObject[]> {
	const call = (method: IHttpRequestMethods, path: string, body?: IDataObject) =>
		taskdRequest.call(this, method, path, body, undefined, { itemIndex: i });
	const param = <T>(name: string, fallback?: T) => this.getNodeParameter(name, i, fallback) as T;
	const id = () => encodeURIComponent(param<string>('taskId'));
	const key = `${resource}.${operation}`;
	switch (key) {
		case 'task.create': {
			const body = {
				board: param<string>('boardId'),
				title: param<string>('title'),
				...given(param<IDataObject>('additionalFields', {})),
			};
			return [(await call('POST', '/v1/cards', body)).card as IDataObject];
		}
		case 'task.update':
			return [
				(await call('PATCH', `/v1/cards/${id()}`, given(param<IDataObject>('updateFields', {}))))
					.card as IDataObject,
			];
		case 'task.move': {
			const body = { list: param<string>('listId'), board: param<string>('boardId') };
			return [(await call('POST', `/v1/cards/${id()}/move`, body)).card as IDataObject];
		}
		case 'task.complete':
			return [
				(
					await call('POST', `/v1/cards/${id()}/complete`, {
						completed: param<boolean>('completed', true),
					})
				).card as IDataObject,
			];
		case 'task.get':
			return [(await call('GET', `/v1/cards/${id()}`)).card as IDataObject];
		case 'task.search': {
			const limit = param<boolean>('returnAll', false) ? Infinity : param<number>('limit', 50);
			const text = param<string>('searchText', '').trim();
			// Text: the full-text search of cards, ranked; else the card list with the filter language.
			if (text)
				return taskdAll.call(
					this,
					'/v1/search',
					given({ q: text, types: 'card', board: param<string>('searchBoardId', '') }),
					limit,
					i,
				);
			const qs = given({
				filter: param<string>('filter', ''),
				board: param<string>('searchBoardId', ''),
				sort: param<string>('sort', ''),
			});
			return taskdAll.call(this, '/v1/cards', qs, limit, i);
		}
		case 'comment.add':
			return [
				(
					await call('POST', '/v1/comments', {
						card: param<string>('taskId'),
						body: param<string>('body'),
					})
				).comment as IDataObject,
			];
		case 'note.create': {
			const body = {
				title: param<string>('noteTitle'),
				body: param<string>('noteBody', ''),
				...given(param<IDataObject>('noteFields', {})),
			};
			return [(await call('POST', '/v1/notes', body)).note as IDataObject];
		}
		case 'timer.start': {
			const body = given({ card: param<string>('taskId'), note: param<string>('timerNote', '') });
			return [(await call('POST', '/v1/time-entries/timer/start', body)).time_entry as IDataObject];
		}
		case 'timer.stop':
			return [(await call('POST', '/v1/time-entries/timer/stop')).time_entry as IDataObject];
		case 'agent.kickOff': {
			const options = param<IDataObject>('kickoffOptions', {});
			const powers = (options.powers as string[] | undefined) ?? [];
			const body = given({
				card: param<string>('taskId'),
				agent: param<string>('agentId', ''),
				workflow: param<string>('agentWorkflowId', ''),
				model: options.model,
				effort: options.effort,
				message: options.message,
			});
			if (powers.length > 0) body.powers = powers;
			return [(await call('POST', '/v1/agent-kickoffs', body)).kickoff as IDataObject];
		}
		case 'workflow.trigger': {
			const raw = param<string | IDataObject>('payload', '{}');
			let payload: IDataObject;
			try {
				payload = typeof raw === 'string' ? (JSON.parse(raw || '{}') as IDataObject) : raw;
			} catch {
				throw new NodeOperationError(this.getNode(), 'The body must be valid JSON', {
					itemIndex: i,
				});
			}
			const endpoint = encodeURIComponent(param<string>('endpointId'));
			return [await call('POST', `/v1/webhooks/incoming/${endpoint}/trigger`, payload)];
		}
	}
	throw new NodeOperationError(
		this.getNode(),
		`The operation "${operation}" of "${resource}" is not known`,
		{ itemIndex: i },
	);
}
