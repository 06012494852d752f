// ESLint (flat config). The aim is catching real bugs, above all a missing `await` now that the code base turns async;
// layout is Prettier's job (eslint-config-prettier, last, switches off every rule that could disagree with it).
// TypeScript files are linted with type information from tsconfig.json (typescript-eslint's project service).
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import { defineConfig, globalIgnores } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  // integrations/n8n is its own package, linted by n8n's own rules (n8n-node lint in scripts/n8n-package.sh).
  globalIgnores(['dist/', 'data/', 'bench/out/', 'node_modules/', 'integrations/', 'web/src/api/schema.d.ts']),

  // Every file: ESLint's recommended set. Node globals for the plain .js files (bin/, bench/, config files).
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `try { ... } catch {}` is a deliberate "ignore" here; other empty blocks are still reported.
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Header and URL validation match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },

  // In the single binary better-sqlite3 cannot find its addon by itself: every connection taskd opens names the one
  // sqliteBinding() gives (src/assets.ts). A connection without it works from the checkout and fails only in the binary.
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Database']:not(:has(Property[key.name='nativeBinding']))",
          message: 'Open SQLite with { nativeBinding: sqliteBinding() } (src/assets.ts), or the single binary cannot load it.',
        },
      ],
    },
  },

  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Promises: a promise nobody awaits, a promise where a value or a void callback is expected, awaiting a non-promise.
      // A family adds its event payload types by an interface that only extends (declaration merging into EventPayloads).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `return promise` inside try/catch/finally skips the catch and runs the finally too early: there it must be `return await`.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // Type-safety style, not bugs: `any` stays allowed (zod/Express/JSON edges use it on purpose).
      '@typescript-eslint/no-explicit-any': 'off',
      // An async function without await is fine (it satisfies an async interface, or awaits nothing yet).
      'require-await': 'off',
      '@typescript-eslint/require-await': 'off',
      // Unused names are errors, except a deliberate `_name` (an argument a signature needs, a skipped element).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // A name used only as a type is imported with `type`, so it is erased and never loads a module at run time.
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
    },
  },

  // Tests: node:test's describe()/it()/test() return promises that the runner itself tracks; not awaiting them is the norm.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
    },
  },

  // The web app (web/, its own tsconfig.json) runs in the browser.
  { files: ['web/src/**/*.{ts,tsx}'], languageOptions: { globals: globals.browser } },

  prettier,
)
