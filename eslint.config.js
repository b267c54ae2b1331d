// ESLint: typescript-eslint's recommended rules, and the import boundaries of the layout
// (docs/layout.md): which room of src/ may import which. A wrong arrow fails `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

/** A room may import only itself and the rooms listed. */
function room(target, allowed) {
  return { target: `./src/${target}`, from: './src', except: [`./${target}`, ...allowed.map((r) => `./${r}`)] };
}

const BOUNDARIES = [
  room('domain', []),
  room('present', ['domain']),
  room('auth', ['domain', 'config.ts']),
  room('store', ['domain']),
  room('http', ['auth', 'domain', 'present', 'config.ts']),
  room('cli', ['domain', 'store', 'auth', 'config.ts', 'server.ts', 'operator-deps.ts']),
  room('events', ['domain', 'present']),
  // One database's store never reaches into another's; what they share lives in store/common.
  { target: './src/store/common', from: ['./src/store/sqlite', './src/store/postgres', './src/store/mysql'] },
  { target: './src/store/sqlite', from: ['./src/store/postgres', './src/store/mysql'] },
  { target: './src/store/postgres', from: ['./src/store/sqlite', './src/store/mysql'] },
  { target: './src/store/mysql', from: ['./src/store/sqlite', './src/store/postgres'] },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'bench/results/', 'bench/profiles/', 'docs/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: BOUNDARIES }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A `let` read by a callback before its one assignment (a cleanup registered first) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests and the benchmark read the replies' JSON as the apps do: untyped.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js', 'bin/*'],
    languageOptions: { globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Kysely's own advice: migrations see the schema as it was then, so they type it as any.
    files: ['src/store/**/migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  prettier,
);
