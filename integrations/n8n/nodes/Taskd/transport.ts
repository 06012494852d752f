import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	INodePropertyOptions,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export type TaskdContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IPollFunctions;

interface TaskdErrorBody {
	error?: { code?: string; message?: string; details?: Array<{ path: string; message: string }> };
}

/** The HTTP status and JSON error body of a failed request, wherever n8n's HTTP helper put them. */
function failure(error: unknown): { status?: number; body?: TaskdErrorBody } {
	const e = error as {
		httpCode?: string;
		response?: { status?: number; data?: unknown; body?: unknown };
		cause?: { response?: { status?: number; data?: unknown } };
	};
	const status =
		e?.response?.status ?? e?.cause?.response?.status ?? (Number(e?.httpCode) || undefined);
	let body = e?.response?.data ?? e?.response?.body ?? e?.cause?.response?.data;
	if (typeof body === 'string') {
		try {
			body = JSON.parse(body);
		} catch {
			body = undefined;
		}
	}
	return { status, body: body as TaskdErrorBody | undefined };
}

/**
 * A request to the taskd API with the credential's token; an API error becomes a NodeApiError with taskd's message
 * (and the input item's index). With `missingOk`, a 404 resolves to an empty object instead; with `goneOk`, a 410 to
 * `{ gone: true }` (the change feed's expired cursor).
 */
export async function taskdRequest(
	this: TaskdContext,
	method: IHttpRequestMethods,
	path: string,
	body?: IDataObject,
	qs?: IDataObject,
	opts: { itemIndex?: number; missingOk?: boolean; goneOk?: boolean } = {},
): Promise<IDataObject> {
	const credentials = await this.getCredentials('taskdApi');
	const baseUrl = String(credentials.baseUrl).replace(/\/+$/, '');
	try {
		return (await this.helpers.httpRequestWithAuthentication.call(this, 'taskdApi', {
			method,
			url: `${baseUrl}${path}`,
			body,
			qs,
			json: true,
		})) as IDataObject;
	} catch (error) {
		const { status, body } = failure(error);
		if (status === 404 && opts.missingOk) return {};
		if (status === 410 && opts.goneOk) return { gone: true };
		const found = body?.error;
		const details = (found?.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ');
		throw new NodeApiError(this.getNode(), error as JsonObject, {
			...(found?.message ? { message: found.message } : {}),
			description: details || undefined,
			httpCode: status ? String(status) : undefined,
			itemIndex: opts.itemIndex,
		});
	}
}

/** Every item of a taskd list route, page after page. */
export async function taskdAll(
	this: TaskdContext,
	path: string,
	qs: IDataObject = {},
	limit = Infinity,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const items: IDataObject[] = [];
	// One page size throughout: changing it between pages would shift the offsets.
	const perPage = Math.min(500, Math.max(1, limit));
	for (let page = 1; ; page++) {
		const res = await taskdRequest.call(
			this,
			'GET',
			path,
			undefined,
			{ ...qs, page, per_page: perPage },
			{ itemIndex },
		);
		items.push(...((res.items as IDataObject[]) ?? []));
		if (items.length >= limit || page >= Number(res.totalPages ?? 0)) return items.slice(0, limit);
	}
}

/** Pickers shared by both nodes: boards and their lists, agents, agent workflows, incoming endpoints. */
export async function boardOptions(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const boards = await taskdAll.call(this, '/v1/boards', { sort: 'name' });
	return boards.map((b) => ({ name: String(b.name), value: String(b.id) }));
}
