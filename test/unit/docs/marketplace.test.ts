/**
 * The Marketplace page (the VSIX's README) is marketplace/README.md, not the repository's README:
 * no repository commands (npm, node scripts/...), no test/fixtures paths, no relative links or images
 * (they would be broken there), and package.json invents no repository URL (issue 26).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, any>;
const page = readFileSync(join(REPO, 'marketplace', 'README.md'), 'utf8');

describe('Marketplace page and package.json', () => {
  test('package.json has no repository, bugs or homepage URL (the project has no public URL)', () => {
    for (const field of ['repository', 'bugs', 'homepage']) assert.equal(pkg[field], undefined, field);
    assert.doesNotMatch(JSON.stringify(pkg), /github\.com|gitlab\.com/);
  });

  test('npm run package uses marketplace/README.md as the VSIX README', () => {
    assert.match(pkg.scripts.package, /vsce package .*--readme-path marketplace\/README\.md/);
    assert.match(pkg.scripts.package, /--allow-missing-repository/);
    // The repository README is not packaged next to it.
    assert.doesNotMatch(readFileSync(join(REPO, '.vscodeignore'), 'utf8'), /^!README\.md$/m);
  });

  test('the page has no repository commands, test paths or relative links', () => {
    for (const bad of [
      /\bnpm (run|test|link|ci|install)\b/,
      /node scripts\//,
      /test\/fixtures/,
      /sample-workspace/,
      /git clone/,
      /\.\.\/shared/,
    ]) {
      assert.doesNotMatch(page, bad);
    }
    const links = [...page.matchAll(/\]\(([^)]*)\)/g)].map((m) => m[1]);
    assert.deepEqual(
      links.filter((l) => !/^https:\/\//.test(l)),
      [],
      'relative links or images',
    );
  });

  test('the page lists every command of the extension', () => {
    const commands = (pkg.contributes.commands as { command: string }[])
      .map((c) => c.command)
      .filter((c) => !c.startsWith('simlens.test') && !c.startsWith('simlens.llm.'));
    const listed = commands.filter((c) => page.includes(`\`${c}\``));
    // The palette table names the user-facing commands (internal ones, e.g. editor-title buttons, are not listed).
    assert.ok(listed.length >= 10, `${listed.length} of ${commands.length} commands listed`);
  });
});

describe('README quick start', () => {
  test('names every Debian package the demo (scripts/setup.sh) installs, slurm-wlm and munge included', () => {
    const setup = readFileSync(join(REPO, 'scripts', 'setup.sh'), 'utf8');
    const wanted = /wanted=\(([^)]*)\)/.exec(setup)![1].split(/\s+/).filter(Boolean);
    const extra = [...setup.matchAll(/wanted\+=\((\w[\w+-]*)\)/g)].map((m) => m[1]);
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## How to'));
    assert.ok(wanted.includes('slurm-wlm') && wanted.includes('munge'));
    for (const p of [...wanted, ...extra])
      assert.ok(quick.includes(`\`${p}\``), `README quick start does not name ${p}`);
  });
});
