/**
 * Import boundaries between SimLens' parts (docs/architecture.md), checked by
 * `npm run check:boundaries` (dependency-cruiser) before the tests run; any "error" fails it.
 * Type-only imports count: a part that imports another's types depends on it too.
 */
/** The `vscode` API (it resolves to its type package). */
const VSCODE = '(^vscode$|(^|/)node_modules/@types/vscode/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-no-shell',
      comment: 'src/core is the pure part: it never imports a shell (extension, server, cli) or the webview.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^(src/(extension|server|cli)|webview)/' },
    },
    {
      name: 'core-no-shared',
      comment: 'src/core owns its types; src/shared (the host-webview protocols) imports core, never the reverse.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/shared/' },
    },
    {
      name: 'core-no-vscode',
      comment: 'src/core runs in the CLI and the language server too: no `vscode` import.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: VSCODE },
    },
    {
      name: 'webview-only-shared',
      comment: 'The webview imports only src/shared (which re-exports what it needs from core) and its own files.',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'webview-no-node',
      comment: 'Webview code (and src/shared, which it runs) runs in a browser: no Node built-ins.',
      severity: 'error',
      from: { path: '^(webview|src/shared)/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'webview-no-vscode',
      comment: 'The webview talks to the host by messages only: no `vscode` import.',
      severity: 'error',
      from: { path: '^(webview|src/shared)/' },
      to: { path: VSCODE },
    },
    {
      name: 'shared-no-shell',
      comment: 'src/shared is run by both sides: it may import core, never a shell or the webview.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^(src/(extension|server|cli)|webview)/' },
    },
    {
      name: 'cli-server-no-extension',
      comment: 'The CLI and the language server run without VS Code: never import src/extension.',
      severity: 'error',
      from: { path: '^src/(cli|server)/' },
      to: { path: ['^src/extension/', VSCODE] },
    },
    {
      name: 'shells-no-webview',
      comment: 'Node code never imports browser code (webview/); they share src/shared only.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^webview/' },
    },
    {
      name: 'src-no-tests',
      comment: 'Product code never imports tests, benchmarks or scripts.',
      severity: 'error',
      from: { path: '^(src|webview)/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'core-no-cycles',
      comment: 'No import cycles inside src/core.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/core/', circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a moved file left a stale path).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
