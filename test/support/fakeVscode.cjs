// A recording stand-in for the `vscode` module, enough to load a SimLens bundle outside VS Code
// and call its activate(): it records registered commands (refusing a second registration of
// the same id, as VS Code does), custom editors, panel serializers and log lines; every other API
// is an inert object that accepts any call. Used by test/unit/architecture/bundles.test.ts and by
// the activation benchmark (bench/activation.ts).
'use strict';
const Module = require('node:module');

/** Something that answers every property read, call and `new` with itself (never a thenable). */
function inert(name = 'vscode') {
  const fn = function () {};
  return new Proxy(fn, {
    get(_t, prop) {
      if (prop === 'then' || prop === Symbol.hasInstance || prop === Symbol.iterator) return undefined;
      if (prop === Symbol.toPrimitive) return () => `[${name}]`;
      if (prop === 'dispose') return () => undefined;
      return inert(`${name}.${String(prop)}`);
    },
    set: () => true,
    apply: () => inert(`${name}()`),
    construct: () => inert(`new ${name}`),
  });
}

function createFakeVscode() {
  const log = [];
  const commands = new Map();
  const serializers = new Map();
  const customEditors = new Map();
  const disposable = (fn) => ({ dispose: fn ?? (() => undefined) });
  const event = () => () => disposable();
  const channel = {};
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'appendLine', 'append'])
    channel[level] = (m) => log.push(`${level} ${m}`);
  channel.show = () => undefined;
  channel.dispose = () => undefined;
  class Uri {
    constructor(scheme, path) {
      this.scheme = scheme;
      this.path = path;
      this.fsPath = path;
    }
    static file(p) {
      return new Uri('file', p);
    }
    static joinPath(base, ...parts) {
      return new Uri(base.scheme, [base.path, ...parts].join('/'));
    }
    toString() {
      return `${this.scheme}://${this.path}`;
    }
  }
  const overrides = {
    version: '1.100.0-fake',
    Uri,
    EventEmitter: class {
      constructor() {
        this.event = event();
      }
      fire() {}
      dispose() {}
    },
    TabInputText: class {},
    TabInputCustom: class {},
    commands: {
      registerCommand(id, handler) {
        if (commands.has(id)) throw new Error(`command '${id}' already exists`);
        commands.set(id, handler);
        return disposable(() => commands.get(id) === handler && commands.delete(id));
      },
      executeCommand(id, ...args) {
        const handler = commands.get(id);
        if (!handler) return Promise.reject(new Error(`command '${id}' not found`));
        return Promise.resolve().then(() => handler(...args));
      },
    },
    window: new Proxy(
      {
        createOutputChannel: () => channel,
        registerWebviewPanelSerializer(viewType, serializer) {
          serializers.set(viewType, serializer);
          return disposable(() => serializers.delete(viewType));
        },
        registerCustomEditorProvider(viewType, provider) {
          customEditors.set(viewType, provider);
          return disposable(() => customEditors.delete(viewType));
        },
        tabGroups: { all: [], onDidChangeTabs: event(), activeTabGroup: { activeTab: undefined } },
      },
      { get: (t, p) => (p in t ? t[p] : inert(`vscode.window.${String(p)}`)) },
    ),
    workspace: new Proxy(
      { textDocuments: [], onDidOpenTextDocument: event(), isTrusted: true },
      { get: (t, p) => (p in t ? t[p] : inert(`vscode.workspace.${String(p)}`)) },
    ),
  };
  // Bundles import `vscode` through esbuild's interop, which copies the module's own keys: every
  // name @types/vscode exports is an own key here (inert unless given above).
  const dts = require('node:fs').readFileSync(require.resolve('@types/vscode/index.d.ts'), 'utf8');
  for (const m of dts.matchAll(/^\s*export (?:namespace|class|enum|const|let|function) (\w+)/gm)) {
    if (!(m[1] in overrides)) overrides[m[1]] = inert(`vscode.${m[1]}`);
  }
  const vscode = new Proxy(overrides, { get: (t, p) => (p in t ? t[p] : inert(`vscode.${String(p)}`)) });
  const context = new Proxy(
    {
      subscriptions: [],
      extensionPath: '',
      asAbsolutePath: (p) => require('node:path').join(context.extensionPath, p),
    },
    { get: (t, p) => (p in t ? t[p] : inert(`context.${String(p)}`)) },
  );
  return { vscode, context, commands, serializers, customEditors, log };
}

/**
 * Makes `require('vscode')` return `fake.vscode` in this process (bundles loaded later on, like
 * dist/features.js, included) until the returned function is called.
 */
function installFakeVscode(fake) {
  const original = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === 'vscode') return fake.vscode;
    return original.call(this, request, parent, isMain);
  };
  return () => {
    Module._load = original;
  };
}

module.exports = { createFakeVscode, installFakeVscode };
