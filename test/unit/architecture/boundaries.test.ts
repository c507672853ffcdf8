import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');

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
    const r = spawnSync(
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
      { cwd: dir, encoding: 'utf8' },
    );
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

test('an import of vscode planted in core, shared, server, cli or webview of the real tree fails the boundary check', () => {
  const dir = copyOfRealTree();
  try {
    for (const { file } of NO_VSCODE)
      writeFileSync(path.join(dir, file), "import * as vscode from 'vscode';\nexport const planted = vscode;\n");
    const r = spawnSync(
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
    assert.ok(r.stdout.trim().startsWith('{'), `dependency-cruiser gave no report; stderr: ${r.stderr.slice(0, 2000)}`);
    const out = JSON.parse(r.stdout) as {
      summary: { violations: { rule: { name: string }; from: string; to: string }[] };
    };
    const found = out.summary.violations.map((v) => `${v.rule.name} ${v.from} -> ${v.to}`).sort();
    const expected = NO_VSCODE.map(
      ({ file, rule }) => `${rule} ${file} -> node_modules/@types/vscode/index.d.ts`,
    ).sort();
    assert.deepEqual(found, expected, 'each planted import, and nothing else in the real tree, is a violation');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a type-only import of vscode planted in core, shared, server, cli or webview fails their TypeScript project', () => {
  const dir = copyOfRealTree();
  try {
    for (const { file, tsconfig } of NO_VSCODE) {
      const planted = path.join(dir, file);
      writeFileSync(planted, "import type { Uri } from 'vscode';\nexport type Planted = Uri;\n");
      // The project's own options (lib, types, paths), checking only the planted file.
      const probe = path.join(path.dirname(path.join(dir, tsconfig)), 'tsconfig.planted.json');
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
      const r = spawnSync(
        process.execPath,
        [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', probe, '--pretty', 'false'],
        { cwd: dir, encoding: 'utf8' },
      );
      assert.notEqual(r.status, 0, `${tsconfig} accepted a type-only import of vscode in ${file}`);
      assert.match(
        r.stdout,
        /TS2306/,
        `${file}: expected "is not a module" for vscode, got: ${r.stdout.slice(0, 1000)}`,
      );
      rmSync(planted);
      rmSync(probe);
    }
    // The extension project still sees the real API.
    const ext = path.join(dir, 'src/extension/planted-ok.ts');
    writeFileSync(ext, "import type { Uri } from 'vscode';\nexport type Planted = Uri;\n");
    const probe = path.join(dir, 'src/extension/tsconfig.planted.json');
    writeFileSync(
      probe,
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { incremental: false, noEmit: true, tsBuildInfoFile: null },
        include: [],
        files: ['planted-ok.ts'],
        references: [],
      }),
    );
    const r = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', probe, '--pretty', 'false'],
      { cwd: dir, encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs the project's dependency-cruiser config over `dir` (a copy of the real tree); "rule from -> to" lines. */
function cruiseCopy(dir: string): string[] {
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      '--config',
      path.join(root, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
      'src',
    ],
    { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  assert.ok(r.stdout.trim().startsWith('{'), `dependency-cruiser gave no report; stderr: ${r.stderr.slice(0, 2000)}`);
  const out = JSON.parse(r.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return [...new Set(out.summary.violations.map((v) => `${v.rule.name} ${v.from} -> ${v.to}`))].sort();
}

test('a folder cycle planted in core of the real tree (llm -> sim, the cycle the taxonomy and failures moves broke) fails the folder rules', () => {
  const dir = copyOfRealTree();
  try {
    // sim already imports llm (its LLM users); an llm file importing sim closes a folder cycle
    // without any file-level cycle.
    writeFileSync(
      path.join(dir, 'src/core/llm/planted-cycle.ts'),
      "import type { Agent } from '../sim/types';\nexport type Planted = Agent;\n",
    );
    // The root files are the lowest layer.
    writeFileSync(
      path.join(dir, 'src/core/planted-root.ts'),
      "import { IARD_LABELS } from './taxonomy';\nexport const planted = IARD_LABELS;\n",
    );
    const found = cruiseCopy(dir);
    assert.ok(
      found.includes('core-order-llm src/core/llm/planted-cycle.ts -> src/core/sim/types.ts'),
      found.join('\n'),
    );
    assert.ok(
      found.includes('core-root-no-folders src/core/planted-root.ts -> src/core/taxonomy/index.ts'),
      found.join('\n'),
    );
    assert.ok(
      found.some((v) => v.startsWith('core-no-folder-cycles src/core/llm -> src/core/sim')),
      found.join('\n'),
    );
    assert.deepEqual(
      found.filter((v) => !/^core-(order-llm|root-no-folders|no-folder-cycles) /.test(v)),
      [],
      'nothing else in the real tree is a violation',
    );
    // Every folder cycle reported is one the planted import closes (between llm and sim, or their subfolders).
    assert.ok(
      found
        .filter((v) => v.startsWith('core-no-folder-cycles'))
        .every((v) => /^core-no-folder-cycles src\/core\/(llm|sim)(\/\S*)? -> src\/core\/(llm|sim)(\/\S*)?$/.test(v)),
      found.join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a folder cycle between two folders of one layer, or below core's top level, fails too", () => {
  const dir = copyOfRealTree();
  try {
    // Same layer (importers, document): a sideways import is refused even before it closes a cycle.
    writeFileSync(
      path.join(dir, 'src/core/importers/planted-side.ts'),
      "import { NO_ACT } from '../document/agreement';\nexport const planted = NO_ACT;\n",
    );
    // Inside one top-level folder: sim/recommenders <-> sim/users/llm closes a cycle of subfolders.
    writeFileSync(
      path.join(dir, 'src/core/sim/users/llm/planted-a.ts'),
      "import { createAgent } from '../../recommenders/index';\nexport const a = createAgent;\n",
    );
    writeFileSync(
      path.join(dir, 'src/core/sim/recommenders/planted-b.ts'),
      "import { a } from '../users/llm/planted-a';\nexport const b = a;\n",
    );
    const found = cruiseCopy(dir);
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
