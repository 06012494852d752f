// /v1/folders: folders of boards, workspace-wide.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { FOLDER_LIST } from './query.js'
import { CreateFolderBody, FolderSchema, MAX_FOLDER_DEPTH, UpdateFolderBody } from './schema.js'
import { createFolder, deleteFolder, getFolderFor, listFolders, updateFolder } from './service.js'

const Folder = envelope('folder', FolderSchema)

const ABOUT = `Folders group boards (a board's \`folder\`, on create and PATCH) and nest at most ${MAX_FOLDER_DEPTH} deep. They are workspace-wide: every member sees every folder's name, while the boards in a folder stay visible to their members only. Any member with a write token creates a folder; its creator and workspace owners and admins rename, move and delete it (others get 403). Deleting a folder moves its boards and folders to its parent.`

export const folderRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/folders',
    operationId: 'listFolders',
    tag: 'Folders',
    access: 'read',
    summary: "List the workspace's folders",
    description: ABOUT,
    query: listQuery(FOLDER_LIST),
    responses: {
      200: {
        description: 'A page of folders',
        schema: pageSchema(FolderSchema.extend({ expand: z.strictObject({ parent: FolderSchema.nullable() }).optional() }), 'FolderPage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listFolders(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/folders',
    operationId: 'createFolder',
    tag: 'Folders',
    access: 'write',
    summary: `Create a folder, at the top or in another (at most ${MAX_FOLDER_DEPTH} deep: 422)`,
    description: ABOUT,
    body: CreateFolderBody,
    responses: { 201: { description: 'The folder', schema: Folder } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { folder: await createFolder(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/folders/{id}',
    operationId: 'getFolder',
    tag: 'Folders',
    access: 'read',
    summary: 'Get a folder',
    params: idParam,
    responses: { 200: { description: 'The folder', schema: Folder } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { folder: await getFolderFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/folders/{id}',
    operationId: 'updateFolder',
    tag: 'Folders',
    access: 'write',
    summary: 'Rename or move a folder (its creator, workspace owners and admins); into itself or one of its own folders, or past the depth limit: 422',
    params: idParam,
    body: UpdateFolderBody,
    responses: { 200: { description: 'The folder', schema: Folder } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { folder: await updateFolder(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/folders/{id}',
    operationId: 'deleteFolder',
    tag: 'Folders',
    access: 'write',
    summary: 'Delete a folder (its creator, workspace owners and admins); its boards and folders move to its parent',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteFolder(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
