import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');

/** dependency-cruiser with the project's config over `src` and `webview` of the tree in `dir` (JSON report on stdout). */
function dependencyCruise(dir: string) {
  return spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      '--config',
      path.join(root, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
      'src',
      'webview',
    ],
    { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
}

/** Runs the project's dependency-cruiser config over a small tree; returns "rule from -> to" lines. */
function cruise(files: Record<string, string>): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'simlens-boundaries-'));
  try {
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    copyFileSync(path.join(root, 'tsconfig.base.json'), path.join(dir, 'tsconfig.base.json'));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const r = dependencyCruise(dir);
    const out = JSON.parse(r.stdout) as {
      summary: { violations: { rule: { name: string; severity: string }; from: string; to: string }[] };
    };
    return out.summary.violations
      .map(
        (v) => `${v.rule.severity} ${v.rule.name} ${v.from} -> ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`,
      )
      .sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the import-boundary rules reject each forbidden import, type-only ones included', () => {
  const found = cruise({
    'src/core/a.ts':
      "import type { X } from '../shared/p';\nimport type * as vscode from 'vscode';\nimport { b } from './b';\nexport const a = b;\n",
    'src/core/b.ts': "import { a } from './a';\nexport const b = 1;\nexport const c = () => a;\n",
    'src/core/c.ts': "import { cli } from '../cli/c';\nexport const c = cli;\n",
    'src/shared/p.ts':
      "import { a } from '../core/a';\nimport { readFileSync } from 'node:fs';\nexport type X = typeof a | typeof readFileSync;\n",
    'src/cli/c.ts': "import { e } from '../extension/e';\nexport const cli = e;\n",
    'src/server/s.ts': "import * as vscode from 'vscode';\nexport const s = vscode;\n",
    'src/server/t.ts':
      "import { fixture } from '../../test/fixture';\nimport { gone } from './moved-away';\nexport const t = [fixture, gone];\n",
    'test/fixture.ts': 'export const fixture = 1;\n',
    'src/extension/e.ts': "import { w } from '../../webview/w';\nexport const e = w;\n",
    'webview/w.ts':
      "import { a } from '../src/core/a';\nimport type { X } from '../src/shared/p';\nimport * as vscode from 'vscode';\nexport const w: X | typeof a = a;\nexport const v = vscode;\n",
  });
  assert.deepEqual(found, [
    'error cli-server-no-extension src/cli/c.ts -> src/extension/e.ts',
    'error cli-server-no-extension src/server/s.ts -> node_modules/@types/vscode/index.d.ts',
    'error core-no-cycles src/core/a.ts -> src/core/b.ts',
    'error core-no-shared src/core/a.ts -> src/shared/p.ts',
    'error core-no-shell src/core/c.ts -> src/cli/c.ts',
    'error core-no-vscode src/core/a.ts -> node_modules/@types/vscode/index.d.ts',
    'error not-to-unresolvable src/server/t.ts -> ./moved-away',
    'error shells-no-webview src/extension/e.ts -> webview/w.ts',
    'error src-no-tests src/server/t.ts -> test/fixture.ts',
    'error webview-no-node src/shared/p.ts -> fs',
    'error webview-no-vscode webview/w.ts -> node_modules/@types/vscode/index.d.ts',
    'error webview-only-shared webview/w.ts -> src/core/a.ts',
  ]);
});

test('the import-boundary rules accept the allowed directions', () => {
  const found = cruise({
    'src/core/model.ts': 'export const m = 1;\n',
    'src/shared/model.ts': "export { m } from '../core/model';\n",
    'src/cli/c.ts':
      "import { m } from '../core/model';\nimport { readFileSync } from 'node:fs';\nexport const c = [m, readFileSync];\n",
    'src/extension/e.ts':
      "import * as vscode from 'vscode';\nimport { m } from '../shared/model';\nexport const e = [vscode, m];\n",
    'webview/w.ts': "import { m } from '../src/shared/model';\nexport const w = m;\n",
  });
  assert.deepEqual(found, []);
});

/** The projects that must not see the VS Code API, with the rule that must catch a planted import. */
const NO_VSCODE: { file: string; rule: string; tsconfig: string }[] = [
  { file: 'src/core/planted-vscode.ts', rule: 'core-no-vscode', tsconfig: 'src/core/tsconfig.json' },
  { file: 'src/shared/planted-vscode.ts', rule: 'webview-no-vscode', tsconfig: 'webview/tsconfig.json' },
  { file: 'src/server/planted-vscode.ts', rule: 'cli-server-no-extension', tsconfig: 'src/server/tsconfig.json' },
  { file: 'src/cli/planted-vscode.ts', rule: 'cli-server-no-extension', tsconfig: 'src/cli/tsconfig.json' },
  { file: 'webview/planted-vscode.ts', rule: 'webview-no-vscode', tsconfig: 'webview/tsconfig.json' },
];

/**
 * A copy of the real tree (src, webview, the tsconfigs and the type stub they map `vscode` to), with
 * node_modules linked in: the project's own config is judged on the project's own layout, not on a
 * fixture. An earlier config excluded node_modules, which dropped every import of `vscode` before a
 * rule could see it; a fixture with its own layout did not show that.
 */
function copyOfRealTree(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'simlens-planted-'));
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  for (const part of ['src', 'webview', 'scripts/types'])
    cpSync(path.join(root, part), path.join(dir, part), { recursive: true });
  for (const file of ['tsconfig.base.json', 'package.json']) copyFileSync(path.join(root, file), path.join(dir, file));
  return dir;
}

/**
 * Every import planted by the three tests below, written into ONE copy of the real tree and cruised
 * once (each cruise of the real tree costs seconds): each test then finds its own plants' violations
 * in that one report, and together they account for every violation in it. Plants cannot hide one
 * another: each rule judges an edge (or, for folder cycles, a folder edge) on its own.
 */
const PLANTS: Record<string, string> = {
  ...Object.fromEntries(
    NO_VSCODE.map(({ file }) => [file, "import * as vscode from 'vscode';\nexport const planted = vscode;\n"]),
  ),
  // sim already imports llm (its LLM users); an llm file importing sim closes a folder cycle
  // without any file-level cycle.
  'src/core/llm/planted-cycle.ts': "import type { Agent } from '../sim/types';\nexport type Planted = Agent;\n",
  // The root files are the lowest layer.
  'src/core/planted-root.ts': "import { IARD_LABELS } from './taxonomy';\nexport const planted = IARD_LABELS;\n",
  // Same layer (importers, document): a sideways import is refused even before it closes a cycle.
  'src/core/importers/planted-side.ts':
    "import { NO_ACT } from '../document/agreement';\nexport const planted = NO_ACT;\n",
  // Inside one top-level folder: sim/recommenders <-> sim/users/llm closes a cycle of subfolders.
  'src/core/sim/users/llm/planted-a.ts':
    "import { createAgent } from '../../recommenders/index';\nexport const a = createAgent;\n",
  'src/core/sim/recommenders/planted-b.ts': "import { a } from '../users/llm/planted-a';\nexport const b = a;\n",
};

let plantedDir = '';
let plantedFound: string[] | undefined;
/** The violations dependency-cruiser reports over the copy with every plant ("rule from -> to" lines). */
function plantedViolations(): string[] {
  if (plantedFound) return plantedFound;
  plantedDir = copyOfRealTree();
  for (const [file, text] of Object.entries(PLANTS)) writeFileSync(path.join(plantedDir, file), text);
  const r = dependencyCruise(plantedDir);
  assert.ok(r.stdout.trim().startsWith('{'), `dependency-cruiser gave no report; stderr: ${r.stderr.slice(0, 2000)}`);
  const out = JSON.parse(r.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  plantedFound = [...new Set(out.summary.violations.map((v) => `${v.rule.name} ${v.from} -> ${v.to}`))].sort();
  return plantedFound;
}
after(() => {
  if (plantedDir) rmSync(plantedDir, { recursive: true, force: true });
});

/** What the vscode plants must produce: one violation each, of the part's own rule. */
const VSCODE_EXPECTED = NO_VSCODE.map(({ file, rule }) => `${rule} ${file} -> node_modules/@types/vscode/index.d.ts`);
/** What the folder plants must produce, besides folder cycles among llm, sim and sim's subfolders. */
const FOLDER_EXPECTED = [
  'core-order-llm src/core/llm/planted-cycle.ts -> src/core/sim/types.ts',
  'core-root-no-folders src/core/planted-root.ts -> src/core/taxonomy/index.ts',
  'core-order-importers src/core/importers/planted-side.ts -> src/core/document/agreement.ts',
];
const PLANTED_FOLDER_CYCLE = /^core-no-folder-cycles src\/core\/(llm|sim)(\/\S*)? -> src\/core\/(llm|sim)(\/\S*)?$/;

test('an import of vscode planted in core, shared, server, cli or webview of the real tree fails the boundary check', () => {
  const found = plantedViolations();
  assert.deepEqual(
    found.filter((v) => v.endsWith(' -> node_modules/@types/vscode/index.d.ts')),
    [...VSCODE_EXPECTED].sort(),
    'each planted import of vscode, and no other import of it in the real tree, is a violation',
  );
});

test('a type-only import of vscode planted in core, shared, server, cli or webview fails their TypeScript project', () => {
  const dir = copyOfRealTree();
  try {
    // Each plant gets a probe project: its part's own options (lib, types, paths), checking only the
    // planted file. The extension's probe is the control: that project still sees the real API.
    const plants = [...NO_VSCODE, { file: 'src/extension/planted-ok.ts', tsconfig: 'src/extension/tsconfig.json' }];
    const probes = plants.map(({ file, tsconfig }, i) => {
      const planted = path.join(dir, file);
      writeFileSync(planted, "import type { Uri } from 'vscode';\nexport type Planted = Uri;\n");
      const probe = path.join(path.dirname(path.join(dir, tsconfig)), `tsconfig.planted-${i}.json`);
      writeFileSync(
        probe,
        JSON.stringify({
          extends: './tsconfig.json',
          compilerOptions: {
            composite: false,
            incremental: false,
            noEmit: true,
            emitDeclarationOnly: false,
            tsBuildInfoFile: null,
          },
          include: [],
          files: [path.relative(path.dirname(probe), planted)],
          references: [],
        }),
      );
      return probe;
    });
    // One tsc in build mode checks every probe (they share the parsed lib and node types: about a
    // third of the CPU of one tsc per probe); --verbose names each project as it is checked.
    const r = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', '--verbose', '--pretty', 'false', ...probes],
      { cwd: dir, encoding: 'utf8' },
    );
    const out = r.stdout + r.stderr;
    for (const probe of probes)
      assert.ok(out.includes(`Building project '${probe}'`), `tsc -b did not check ${probe}:\n${out.slice(0, 3000)}`);
    assert.notEqual(r.status, 0, out.slice(0, 3000));
    const errors = out.split('\n').filter((l) => /error TS\d+/.test(l));
    for (const { file, tsconfig } of NO_VSCODE)
      assert.ok(
        errors.some((l) => l.startsWith(`${file}(1,`) && l.includes('error TS2306')),
        `${tsconfig} accepted a type-only import of vscode in ${file} (expected "is not a module"):\n${out.slice(0, 3000)}`,
      );
    // Nothing else fails: the extension's probe is clean, and each plant has its one error.
    assert.deepEqual(
      errors.map((l) => l.slice(0, l.indexOf('('))).sort(),
      NO_VSCODE.map(({ file }) => file).sort(),
      out.slice(0, 3000),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a folder cycle planted in core of the real tree (llm -> sim, the cycle the taxonomy and failures moves broke) fails the folder rules', () => {
  const found = plantedViolations();
  assert.ok(found.includes('core-order-llm src/core/llm/planted-cycle.ts -> src/core/sim/types.ts'), found.join('\n'));
  assert.ok(
    found.includes('core-root-no-folders src/core/planted-root.ts -> src/core/taxonomy/index.ts'),
    found.join('\n'),
  );
  assert.ok(
    found.some((v) => v.startsWith('core-no-folder-cycles src/core/llm -> src/core/sim')),
    found.join('\n'),
  );
  // Nothing else in the real tree is a violation: every one is a plant's (the vscode plants', the
  // folder plants', or a folder cycle the plants close: between llm and sim, or sim's subfolders).
  assert.deepEqual(
    found.filter((v) => !VSCODE_EXPECTED.includes(v) && !FOLDER_EXPECTED.includes(v) && !PLANTED_FOLDER_CYCLE.test(v)),
    [],
    'nothing but the plants is a violation',
  );
});

test("a folder cycle between two folders of one layer, or below core's top level, fails too", () => {
  const found = plantedViolations();
  assert.ok(
    found.includes('core-order-importers src/core/importers/planted-side.ts -> src/core/document/agreement.ts'),
    found.join('\n'),
  );
  assert.ok(
    found.some(
      (v) =>
        v.startsWith('core-no-folder-cycles src/core/sim/recommenders -> src/core/sim/users/llm') ||
        v.startsWith('core-no-folder-cycles src/core/sim/users/llm -> src/core/sim/recommenders'),
    ),
    found.join('\n'),
  );
});
