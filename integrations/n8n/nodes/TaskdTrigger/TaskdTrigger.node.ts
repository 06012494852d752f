import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { boardOptions, taskdRequest } from '../Taskd/transport';

interface SubscriptionState {
	subscriptionId?: string;
	secret?: string;
	/** The secret before the trigger's last rotation, still accepted until `previousUntil` (ms since 1970). */
	previousSecret?: string;
	previousUntil?: number;
	/** Polling: the change feed cursor read up to (GET /v1/events). */
	cursor?: string;
}

/** Events per change feed request (the most taskd answers at once). */
const PAGE = 500;
/** Change feed requests one poll makes at most; what is left waits for the next poll. */
const MAX_PAGES = 20;

/** The node's event and board choices as the change feed's query. */
function feedSelection(ctx: IPollFunctions): IDataObject {
	const events = ctx.getNodeParameter('events', []) as string[];
	if (events.length === 0) throw new NodeOperationError(ctx.getNode(), 'Choose at least one event');
	const boards = ctx.getNodeParameter('boards', []) as string[];
	return { events: events.join(','), ...(boards.length > 0 && { boards: boards.join(',') }) };
}

/**
 * The polling mode's poll: the events taskd committed since the last poll that the workflow selects, oldest first, as
 * a webhook delivery's bodies; the cursor is kept in the node's static data. The first poll after activation only takes
 * the cursor of the present moment (what happened before is not replayed). A manual run (the editor's test) shows the
 * events since the last poll without taking them, or, before any, the most recent one.
 */
export async function pollEvents(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	if (this.getNodeParameter('delivery', 'webhook') !== 'poll') return null;
	const state = this.getWorkflowStaticData('node') as SubscriptionState;
	const selection = feedSelection(this);
	const manual = this.getMode() === 'manual';
	const head = async () =>
		String((await taskdRequest.call(this, 'GET', '/v1/events', undefined, { after: 'now' })).next);
	if (state.cursor === undefined && !manual) {
		state.cursor = await head();
		return null;
	}
	const items: IDataObject[] = [];
	let cursor = state.cursor;
	if (cursor === undefined) {
		// A test before the first poll: the newest event taskd keeps that the workflow selects, if any.
		let after: string | undefined;
		let newest: IDataObject | undefined;
		for (let page = 0; page < MAX_PAGES; page++) {
			const res: IDataObject = await taskdRequest.call(this, 'GET', '/v1/events', undefined, {
				...selection,
				limit: PAGE,
				...(after !== undefined && { after }),
			});
			const got = (res.items as IDataObject[]) ?? [];
			newest = got[got.length - 1] ?? newest;
			after = String(res.next);
			if (got.length < PAGE) break;
		}
		return newest ? [this.helpers.returnJsonArray([newest])] : null;
	}
	const budget = Date.now() + (this.getPollBudgetMs?.() ?? 60_000) / 2;
	for (let page = 0; page < MAX_PAGES && Date.now() < budget; page++) {
		const res: IDataObject = await taskdRequest.call(
			this,
			'GET',
			'/v1/events',
			undefined,
			{ ...selection, after: cursor, limit: PAGE },
			{ goneOk: !manual },
		);
		if (res.gone) {
			// Polls stopped for longer than taskd keeps events: what happened meanwhile is gone; go on from now.
			this.logger.warn(
				'taskd no longer keeps the events since the last poll (cursor_expired); polling goes on from now',
			);
			state.cursor = await head();
			return null;
		}
		items.push(...((res.items as IDataObject[]) ?? []));
		cursor = String(res.next);
		if (((res.items as IDataObject[]) ?? []).length < PAGE) break;
	}
	if (!manual) state.cursor = cursor;
	return items.length > 0 ? [this.helpers.returnJsonArray(items)] : null;
}

/** How long the secret before a rotation keeps signing beside the new one (taskd's overlap), and is accepted here. */
const OVERLAP_HOURS = 1;
/** A Standard Webhooks timestamp further than this from now is refused (a replay of an old delivery). */
const TOLERANCE_SECONDS = 5 * 60;

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);
/** Request headers as n8n hands them over (lower-case names). */
type Headers = Record<string, unknown>;
const header = (headers: Headers, name: string) => {
	const value = headers[name];
	return typeof value === 'string' ? value : undefined;
};

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
	return sameBytes(Buffer.from(signature), expected);
}

/**
 * Standard Webhooks: true when one `v1,` entry of `webhook-signature` is the base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<raw body>" with the secret, and the timestamp is within 5 minutes of now.
 * taskd puts two entries there while a secret rotation overlaps: one made with the new secret, one with the old.
 */
export function standardSignatureMatches(
	secret: string,
	rawBody: Buffer,
	headers: Headers,
	nowSeconds: number,
): boolean {
	const id = header(headers, 'webhook-id');
	const ts = header(headers, 'webhook-timestamp');
	const list = header(headers, 'webhook-signature');
	if (!id || !ts || !/^\d+$/.test(ts) || !list) return false;
	if (Math.abs(nowSeconds - Number(ts)) > TOLERANCE_SECONDS) return false;
	const expected = createHmac('sha256', secret).update(`${id}.${ts}.`).update(rawBody).digest();
	return list
		.split(' ')
		.some((entry) => entry.startsWith('v1,') && sameBytes(Buffer.from(entry.slice(3), 'base64'), expected));
}

/** The secrets a delivery may be signed with: the trigger's, and the one before its last rotation while it overlaps. */
export function acceptedSecrets(state: SubscriptionState, now: number): string[] {
	const previous =
		state.previousSecret && (state.previousUntil ?? 0) > now ? [state.previousSecret] : [];
	return state.secret ? [state.secret, ...previous] : previous;
}

/** True when the delivery is signed with one of the secrets, in X-Service-Signature or in webhook-signature. */
export function deliveryVerified(
	secrets: string[],
	rawBody: Buffer,
	headers: Headers,
	now: number,
): boolean {
	const service = header(headers, 'x-service-signature');
	return secrets.some(
		(secret) =>
			signatureMatches(secret, rawBody, service) ||
			standardSignatureMatches(secret, rawBody, headers, now / 1000),
	);
}

/**
 * Rotates the subscription's secret in taskd (the trigger's secret is its own: nobody else knows it), keeping the old
 * one accepted for the overlap. Done each time n8n registers the trigger again (a restart, a re-activation) and finds
 * its subscription. A taskd without rotation (or a failed call) leaves the secret as it is.
 */
async function rotateSecret(this: IHookFunctions, state: SubscriptionState, path: string) {
	if (!state.secret) return;
	let rotated: IDataObject;
	try {
		rotated = await taskdRequest.call(this, 'POST', `${path}/rotate-secret`, {
			overlap_hours: OVERLAP_HOURS,
		});
	} catch {
		return;
	}
	if (typeof rotated.secret !== 'string') return;
	state.previousSecret = state.secret;
	state.previousUntil = Date.now() + OVERLAP_HOURS * 3_600_000;
	state.secret = rotated.secret;
}

/** Forgets the trigger's secrets. */
function forgetSecrets(state: SubscriptionState) {
	delete state.secret;
	delete state.previousSecret;
	delete state.previousUntil;
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
			'Starts the workflow when an event happens in taskd: taskd sends it to this n8n’s webhook URL, or, for an n8n that taskd cannot reach, n8n polls taskd’s change feed.',
		defaults: { name: 'Taskd Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'taskdApi', required: true }],
		polling: true,
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [
			{
				displayName: 'Receive Events By',
				name: 'delivery',
				type: 'options',
				options: [
					{
						name: 'Polling',
						value: 'poll',
						description:
							'Asks taskd for new events on the schedule below (its change feed): for an n8n that taskd cannot reach',
					},
					{
						name: 'Webhook',
						value: 'webhook',
						description: 'Taskd sends each event to this n8n as it happens: taskd must reach this n8n',
					},
				],
				default: 'webhook',
			},
			{
				displayName:
					'taskd must be able to reach this n8n’s webhook URL. With n8n on the same machine or on a private network, start taskd with TASKD_ALLOW_PRIVATE_TARGETS=true.',
				name: 'reachNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { delivery: ['webhook'] } },
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
				if (this.getNodeParameter('delivery', 'webhook') === 'poll') {
					// Polling needs no subscription: one left from the webhook mode is removed.
					if (state.subscriptionId) {
						const path = `/v1/webhooks/${encodeURIComponent(state.subscriptionId)}`;
						await taskdRequest.call(this, 'DELETE', path, undefined, undefined, { missingOk: true });
						delete state.subscriptionId;
						delete state.secret;
					}
					return true;
				}
				if (!state.subscriptionId) return false;
				const path = `/v1/webhooks/${encodeURIComponent(state.subscriptionId)}`;
				const found = await taskdRequest.call(this, 'GET', path, undefined, undefined, {
					missingOk: true,
				});
				if ((found.webhook as IDataObject | undefined)?.url === this.getNodeWebhookUrl('default')) {
					await rotateSecret.call(this, state, path);
					return true;
				}
				// Gone in taskd, or pointing elsewhere (n8n's URL changed): removed, and n8n creates a new one.
				if (found.webhook)
					await taskdRequest.call(this, 'DELETE', path, undefined, undefined, { missingOk: true });
				delete state.subscriptionId;
				forgetSecrets(state);
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
				forgetSecrets(state);
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
				forgetSecrets(state);
				return true;
			},
		},
	};

	poll = pollEvents;

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const state = this.getWorkflowStaticData('node') as SubscriptionState;
		const req = this.getRequestObject();
		const raw = (req as { rawBody?: Buffer }).rawBody;
		const now = Date.now();
		if (!raw || !deliveryVerified(acceptedSecrets(state, now), raw, this.getHeaderData(), now)) {
			const res = this.getResponseObject();
			res.status(401).json({
				error: {
					code: 'unauthorized',
					message: 'Neither X-Service-Signature nor webhook-signature matches.',
				},
			});
			return { noWebhookResponse: true };
		}
		return { workflowData: [this.helpers.returnJsonArray(this.getBodyData())] };
	}
}
