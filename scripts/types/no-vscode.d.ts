// Where `vscode` resolves in the projects that must not see the VS Code API (src/core, src/cli,
// src/server, webview with src/shared): their tsconfig.json maps the module name `vscode` here
// ("paths"). This file is deliberately not a module (no import or export), so any
// `import ... from 'vscode'`, type-only included, fails the type check with TS2306
// ("File ... is not a module"). src/extension and the tests see the real @types/vscode.
declare const simlensNoVscodeHere: never;
