/**
 * Import boundaries between SimLens' parts (docs/architecture.md), checked by
 * `npm run check:boundaries` (dependency-cruiser) before the tests run; any "error" fails it.
 * Type-only imports count: a part that imports another's types depends on it too.
 */
/** The `vscode` API (it resolves to its type package). */
const VSCODE = '(^vscode$|(^|/)node_modules/@types/vscode/)';
/** The vscode-free part of the conversation editor's host side (see src/extension/editor/controller.ts). */
const EDITOR_NO_VSCODE = '^src/extension/editor/(controller|documentCore|noticeLog|trace)\\.ts$';

/**
 * The order of the folders inside src/core, lowest first (docs/architecture.md, "Inside core"). A
 * folder imports the root files (model.ts, random.ts, failures.ts, atomicFile.ts, forkPolicy.ts) and the folders
 * of lower layers only: never a folder of its own layer or above, so no folder cycle can form.
 * A new folder of core must be given its layer here.
 */
const CORE_LAYERS = [
  ['taxonomy', 'stats', 'jsonl'],
  ['text', 'export'],
  ['catalog'],
  ['importers', 'document', 'llm', 'lsp'],
  ['sim', 'metrics'],
  ['check'],
  ['run'],
  ['report'],
  ['diff'],
  ['worker'],
];

/** One rule per folder: [name, comment, from, to]; `to` is every folder of its layer or above but itself. */
const CORE_ORDER = CORE_LAYERS.flatMap((layer, k) =>
  layer.map((folder) => {
    const below = CORE_LAYERS.slice(0, k).flat();
    const banned = CORE_LAYERS.slice(k)
      .flat()
      .filter((f) => f !== folder);
    return [
      `core-order-${folder}`,
      `src/core/${folder} imports the core root files${below.length ? ` and ${below.join(', ')}` : ''} only (the folder order in .dependency-cruiser.cjs).`,
      { path: `^src/core/${folder}/` },
      { path: `^src/core/(${banned.join('|')})/` },
    ];
  }),
);

/** Every rule is an error: [name, comment, from, to]. */
const RULES = [
  [
    'core-no-shell',
    'src/core is the pure part: it never imports a shell (extension, server, cli) or the webview.',
    { path: '^src/core/' },
    { path: '^(src/(extension|server|cli)|webview)/' },
  ],
  [
    'core-no-shared',
    'src/core owns its types; src/shared (the host-webview protocols) imports core, never the reverse.',
    { path: '^src/core/' },
    { path: '^src/shared/' },
  ],
  [
    'core-no-vscode',
    'src/core runs in the CLI and the language server too: no `vscode` import.',
    { path: '^src/core/' },
    { path: VSCODE },
  ],
  [
    'editor-controller-no-vscode',
    "The editor's host controller (and what it uses) runs in the jsdom tests with the real page: no `vscode`, and nothing in src/extension that imports it.",
    { path: EDITOR_NO_VSCODE },
    { path: [VSCODE, '^src/extension/'], pathNot: EDITOR_NO_VSCODE },
  ],
  [
    'webview-only-shared',
    'The webview imports only src/shared (which re-exports what it needs from core) and its own files.',
    { path: '^webview/' },
    { path: '^src/', pathNot: '^src/shared/' },
  ],
  [
    'webview-no-node',
    'Webview code (and src/shared, which it runs) runs in a browser: no Node built-ins.',
    { path: '^(webview|src/shared)/' },
    { dependencyTypes: ['core'] },
  ],
  [
    'webview-no-vscode',
    'The webview talks to the host by messages only: no `vscode` import.',
    { path: '^(webview|src/shared)/' },
    { path: VSCODE },
  ],
  [
    'shared-no-shell',
    'src/shared is run by both sides: it may import core, never a shell or the webview.',
    { path: '^src/shared/' },
    { path: '^(src/(extension|server|cli)|webview)/' },
  ],
  [
    'cli-server-no-extension',
    'The CLI and the language server run without VS Code: never import src/extension.',
    { path: '^src/(cli|server)/' },
    { path: ['^src/extension/', VSCODE] },
  ],
  [
    'shells-no-webview',
    'Node code never imports browser code (webview/); they share src/shared only.',
    { path: '^src/' },
    { path: '^webview/' },
  ],
  [
    'src-no-tests',
    'Product code never imports tests, benchmarks or scripts.',
    { path: '^(src|webview)/' },
    { path: '^(test|bench|scripts)/' },
  ],
  [
    'core-no-cycles',
    'No import cycles inside src/core.',
    { path: '^src/core/' },
    { path: '^src/core/', circular: true },
  ],
  [
    'core-root-no-folders',
    'The root files of src/core (model.ts, random.ts, failures.ts, atomicFile.ts, forkPolicy.ts) are the lowest layer: they import no folder of core.',
    { path: '^src/core/[^/]+$' },
    { path: '^src/core/[^/]+/' },
  ],
  ...CORE_ORDER,
  ['not-to-unresolvable', 'Every import resolves (a moved file left a stale path).', {}, { couldNotResolve: true }],
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...RULES.map(([name, comment, from, to]) => ({ name, comment, severity: 'error', from, to })),
    {
      name: 'core-no-folder-cycles',
      comment: 'No cycle between the folders of src/core, at any depth (a folder is the set of its files).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/core/' },
      to: { path: '^src/core/', circular: true },
    },
  ],
  options: {
    // node_modules is not followed but must NOT be excluded: `vscode` resolves to
    // node_modules/@types/vscode, and an excluded target drops the dependency before any rule can
    // see it (a planted `import * as vscode from 'vscode'` in src/core then passed with exit 0).
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    // Paths stay as written, so a copy of the tree whose node_modules is a link (the planted-import
    // test) is judged exactly like the real tree.
    preserveSymlinks: true,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
