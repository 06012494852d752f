import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	ILoadOptionsFunctions,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { boardOptions, taskdRequest } from '../Taskd/transport';

interface SubscriptionState {
	subscriptionId?: string;
	secret?: string;
}

/** True when `signature` is "sha256=" + the hex HMAC-SHA256 of the raw body with the secret; constant time. */
export function signatureMatches(
	secret: string,
	rawBody: Buffer,
	signature: string | undefined,
): boolean {
	if (!signature) return false;
	const expected = Buffer.from(
		'sha256=' + createHmac('sha256', secret).update(rawBody).digest('hex'),
	);
	const given = Buffer.from(signature);
	return given.length === expected.length && timingSafeEqual(given, expected);
}

export class TaskdTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Taskd Trigger',
		name: 'taskdTrigger',
		icon: { light: 'file:../../icons/taskd.svg', dark: 'file:../../icons/taskd.dark.svg' },
		group: ['trigger'],
		version: [1],
		subtitle: '={{$parameter["events"].join(", ")}}',
		description:
			'Starts the workflow when taskd sends an event. taskd must be able to reach this n8n’s webhook URL: on a private network start taskd with TASKD_ALLOW_PRIVATE_TARGETS=true.',
		defaults: { name: 'Taskd Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'taskdApi', required: true }],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [
			{
				displayName:
					'taskd must be able to reach this n8n’s webhook URL. With n8n on the same machine or on a private network, start taskd with TASKD_ALLOW_PRIVATE_TARGETS=true.',
				name: 'reachNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event Names or IDs',
				name: 'events',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getEvents' },
				required: true,
				default: [],
				description:
					'The events that start the workflow: all of them, a whole family, or single events. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Board Names or IDs',
				name: 'boards',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getBoards' },
				default: [],
				description:
					'Only events of these boards; none chosen: every board (for workspace owners and admins only). Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
		],
	};

	methods = {
		loadOptions: {
			getBoards: boardOptions,
			async getEvents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const catalog = (await taskdRequest.call(this, 'GET', '/v1/webhooks/events'))
					.items as IDataObject[];
				const available = catalog.filter((e) => e.available);
				const families = [...new Set(available.map((e) => String(e.family)))].sort();
				return [
					{ name: 'All Events', value: '*' },
					...families.map((f) => ({ name: `All ${f} Events`, value: `${f}.*` })),
					...available.map((e) => ({
						name: String(e.event),
						value: String(e.event),
						description: String(e.summary),
					})),
				];
			},
		},
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const state = this.getWorkflowStaticData('node') as SubscriptionState;
				if (!state.subscriptionId) return false;
				const path = `/v1/webhooks/${encodeURIComponent(state.subscriptionId)}`;
				const found = await taskdRequest.call(this, 'GET', path, undefined, undefined, {
					missingOk: true,
				});
				if ((found.webhook as IDataObject | undefined)?.url === this.getNodeWebhookUrl('default'))
					return true;
				// Gone in taskd, or pointing elsewhere (n8n's URL changed): removed, and n8n creates a new one.
				if (found.webhook)
					await taskdRequest.call(this, 'DELETE', path, undefined, undefined, { missingOk: true });
				delete state.subscriptionId;
				delete state.secret;
				return false;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const events = this.getNodeParameter('events', []) as string[];
				if (events.length === 0)
					throw new NodeOperationError(this.getNode(), 'Choose at least one event');
				const secret = randomBytes(32).toString('hex');
				const body = {
					name: `n8n: ${this.getWorkflow().name ?? this.getWorkflow().id}`,
					url: this.getNodeWebhookUrl('default'),
					events,
					boards: this.getNodeParameter('boards', []) as string[],
					secret,
				};
				const created = await taskdRequest.call(this, 'POST', '/v1/webhooks', body);
				const state = this.getWorkflowStaticData('node') as SubscriptionState;
				state.subscriptionId = String((created.webhook as IDataObject).id);
				state.secret = secret;
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const state = this.getWorkflowStaticData('node') as SubscriptionState;
				if (state.subscriptionId) {
					// Already gone in taskd (404): nothing left to remove.
					const path = `/v1/webhooks/${encodeURIComponent(state.subscriptionId)}`;
					await taskdRequest.call(this, 'DELETE', path, undefined, undefined, { missingOk: true });
				}
				delete state.subscriptionId;
				delete state.secret;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const state = this.getWorkflowStaticData('node') as SubscriptionState;
		const req = this.getRequestObject();
		const signature = this.getHeaderData()['x-service-signature'] as string | undefined;
		const raw = (req as { rawBody?: Buffer }).rawBody;
		if (!state.secret || !raw || !signatureMatches(state.secret, raw, signature)) {
			const res = this.getResponseObject();
			res.status(401).json({
				error: {
					code: 'unauthorized',
					message: 'The X-Service-Signature header does not match.',
				},
			});
			return { noWebhookResponse: true };
		}
		return { workflowData: [this.helpers.returnJsonArray(this.getBodyData())] };
	}
}
