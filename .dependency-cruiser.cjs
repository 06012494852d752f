// Layer rules for the TARGET layout of src/ (`npm run layers`):
//
//   src/resources/<family>/{schema,store,published,service,present,query,events,routes,index}.ts   users, tokens, boards, lists, cards, ...
//   src/http/  route specs, auth, errors, openapi, docs      src/query/   listPage
//   src/access/  visibility helpers, roles                  src/db/      dialects, sql runner, generated table types
//   src/events/  catalog, emit                              src/delivery/  outbox delivery pipeline
//   src/filter/  filter language                            src/cli/, app.ts, server.ts, housekeeping.ts, config.ts, version.ts
//   src/ops/  health, readiness and metrics routes (above resources/, below app.ts)
//   leaf modules: src/clock.ts, src/ids.ts, src/log.ts, src/crypto.ts
//
// Every rule matches paths, so a rule about a folder that does not exist yet matches nothing and passes.
// Type-only imports count like any other (tsPreCompilationDeps): `import type` from the wrong layer is still the wrong layer.
// Paths are relative to the repository root, with forward slashes: e.g. src/resources/cards/routes.ts.

/** A family's file of the given name(s), e.g. family('store') matches src/resources/cards/store.ts. */
const family = (names) => `^src/resources/[^/]+/(${names})\\.ts$`

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'routes-no-store-no-db',
      comment:
        "A family's routes.ts deals in API shapes: it goes through a service (its own or another family's), never a store.ts " +
        "(its own or another's) nor src/db/; not even `import type` of the generated table types.",
      severity: 'error',
      from: { path: family('routes') },
      to: { path: [family('store'), '^src/db/'] },
    },
    {
      name: 'store-stays-down',
      comment:
        'A store.ts is the bottom of its family: it reads and writes rows and knows nothing of the service or routes ' +
        'above it, of HTTP (src/http/: no HTTP errors thrown from a store) or of events (src/events/: the service emits).',
      severity: 'error',
      from: { path: family('store') },
      to: { path: [family('service|routes'), '^src/http/', '^src/events/'] },
    },
    {
      name: 'filter-is-a-leaf',
      comment:
        'The filter language (src/filter/) is a self-contained library: it throws its own errors and never imports src/http/ ' +
        'nor src/resources/, nor events/, delivery/, access/ or query/. Resources register their fields with it, not the other way.',
      severity: 'error',
      from: { path: '^src/filter/' },
      to: { path: '^src/(resources|http|events|delivery|access|query)/' },
    },
    {
      name: 'leaves-stay-leaves',
      comment:
        'src/db/ and the small leaf modules src/clock.ts, src/ids.ts, src/version.ts sit below everything: they import nothing ' +
        'from resources/, http/, events/, delivery/, access/ or query/ (src/filter/ has its own rule above).',
      severity: 'error',
      from: { path: ['^src/db/', '^src/(clock|ids|version)\\.ts$'] },
      to: { path: '^src/(resources|http|events|delivery|access|query)/' },
    },
    {
      name: 'events-delivery-not-http',
      comment:
        'Events (src/events/) and webhook delivery (src/delivery/) also run outside a request (the outbox worker, the CLI): ' +
        "they never import src/http/ nor any family's routes.ts. Constants they share with HTTP (e.g. VERSION) live in a leaf module.",
      severity: 'error',
      from: { path: '^src/(events|delivery)/' },
      to: { path: ['^src/http/', family('routes')] },
    },
    {
      name: 'services-take-no-http',
      comment:
        'Services, stores and the other layers that also run outside a request (events, delivery, jobs, access, query, db) ' +
        'take plain values, never an Express request or response: not even `import type` from express. The route or ' +
        'receiver reads what the operation needs from HTTP and hands it over.',
      severity: 'error',
      from: { path: [family('schema|store|service|present|query|events|published|lifecycle'), '^src/(events|delivery|jobs|access|query|db|filter)/'] },
      to: { path: '(^|/)node_modules/(@types/)?express(-serve-static-core)?/' },
    },
    {
      name: 'no-role-checks-in-stores',
      comment:
        'Who may see or do what is decided in src/access/, not in a store: a store.ts imports no role-deciding helper of ' +
        'src/access/roles.ts (isAdmin, isAdminRole, ADMIN_ROLES), only its types. A store that lists what a viewer sees ' +
        'takes the scope already decided (sightLimitedTo) or a visibility subquery of src/access/ (visibleBoardIds).',
      severity: 'error',
      from: { path: family('store') },
      to: { path: '^src/access/roles\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-other-familys-store',
      comment:
        "One family does not reach into another family's store.ts: it goes through that family's service (operations with " +
        'rules and events), its index.ts, or its published.ts (the few plain queries the owner lets other families run in ' +
        'their own transaction), so the owner keeps its rules (visibility, events) in one place and knows who uses its rows.',
      severity: 'error',
      from: { path: '^src/resources/([^/]+)/' },
      to: { path: family('store'), pathNot: '^src/resources/$1/' },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycles between modules, which also rules out cycles through folders at module level. ' +
        'A cycle makes load order matter (an import can be undefined when first used) and makes layers meaningless.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'data-below-services',
      comment:
        "A family's schema, store, present, query, events and published files are the data layer: they never import a service or routes " +
        '(of any family), so operations sit above everything they read and the service layer cannot loop back through them.',
      severity: 'error',
      from: { path: family('schema|store|present|query|events|published') },
      to: { path: family('service|routes|actions|rules|authenticate') },
    },
    {
      name: 'no-circular-families',
      comment:
        'No cycle between families, counted per folder: if src/resources/cards imports src/resources/boards (any file), ' +
        'then nothing in boards may import cards, directly or via other families. A warning: the data model is cyclic (a board ' +
        'holds lists and cards, a card shows its board), so families read each other; module cycles stay errors (no-circular), ' +
        'and data-below-services keeps the operations above what they read.',
      severity: 'warn',
      scope: 'folder',
      from: { path: '^src/resources/[^/]+/?$' },
      to: { path: '^src/resources/[^/]+/?$', circular: true },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['^dist/', '^node_modules/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Only what the rules need is computed (faster); no orphan, reachability or metrics analysis.
    skipAnalysisNotInRules: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
}
