// ESLint flat config (issue 25): typescript-eslint's recommended rules over every TypeScript source
// (src, webview, test, bench, scripts). Formatting is Prettier's job (.prettierrc.json); `npm run lint`
// runs both in check mode and CI fails on either.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  // What .gitignore leaves out (built, installed or generated: the demo's extension copy in .cache,
  // the sample workspace, bench data) is not linted, nor are fixtures and declaration files.
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'out/**',
      '.vscode-test/**',
      '.cache/**',
      'test-results/**',
      'sample-workspace/**',
      'bench/data/**',
      'test/fixtures/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // A destructuring that reassigns one of its names stays one `let`.
      'prefer-const': ['error', { destructuring: 'all' }],
    },
  },
  // The webview pages run in the browser (no Node globals there).
  { files: ['webview/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
  // Tests read untyped JSON (manifests, schemas, package.json) and poke at it.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  // CommonJS scripts and the plain-JS test extension load their modules with require().
  {
    files: ['**/*.cjs', 'test/e2e/emptyWebview/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Published numerical coefficients are kept at their published precision (they round to the same
  // double; the digits are there to be checked against the source), and one editor fixture writes a
  // number too large for a double on purpose.
  {
    files: ['src/core/stats/**', 'test/unit/stats/**', 'test/unit/editor/fixtures.ts'],
    rules: { 'no-loss-of-precision': 'off' },
  },
);
