// ESLint flat config (issue 25): typescript-eslint's recommended rules over every TypeScript source
// (src, webview, test, bench, scripts). Formatting is Prettier's job (.prettierrc.json); `npm run lint`
// runs both in check mode and CI fails on either.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', '.vscode-test/**', 'test/fixtures/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
