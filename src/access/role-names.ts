// Role and permission names as plain lists: the one definition, which src/access/roles.ts makes schemas of and which
// the command line's option parsing reads without loading zod.
export const ROLES = ['owner', 'admin', 'member'] as const
export const PERMISSIONS = ['read', 'write', 'full'] as const
