/**
 * The `lsp` tool's answers from VS Code's language-feature commands: whatever language servers
 * the user has installed (TypeScript, Python, rust-analyzer, …). Positions are converted from
 * the tool's 1-based lines and characters to VS Code's 0-based ones and back.
 */
import * as vscode from 'vscode';
import { sep } from 'node:path';
import type { LanguageFeatures, SourceDiagnostic, SourceRange, SourceSymbol } from '../../core/host';

const position = (line: number, character: number): vscode.Position => new vscode.Position(line - 1, character - 1);

function toRange(location: vscode.Location | vscode.LocationLink): SourceRange {
  const uri = 'targetUri' in location ? location.targetUri : location.uri;
  const range = 'targetUri' in location ? (location.targetSelectionRange ?? location.targetRange) : location.range;
  return {
    path: uri.fsPath,
    line: range.start.line + 1,
    character: range.start.character + 1,
    endLine: range.end.line + 1,
    endCharacter: range.end.character + 1,
  };
}

/** Language servers answer for documents the editor has loaded; loading does not show them. */
async function load(path: string): Promise<vscode.Uri> {
  const uri = vscode.Uri.file(path);
  await vscode.workspace.openTextDocument(uri);
  return uri;
}

function hoverText(content: vscode.MarkdownString | vscode.MarkedString): string {
  if (typeof content === 'string') return content;
  if (content instanceof vscode.MarkdownString) return content.value;
  return `\`\`\`${content.language}\n${content.value}\n\`\`\``;
}

function flattenSymbols(symbols: readonly (vscode.DocumentSymbol | vscode.SymbolInformation)[], depth = 0): SourceSymbol[] {
  return symbols.flatMap((symbol) => {
    const range = 'range' in symbol ? symbol.range : symbol.location.range;
    const entry: SourceSymbol = {
      name: symbol.name,
      kind: vscode.SymbolKind[symbol.kind],
      ...('detail' in symbol && symbol.detail ? { detail: symbol.detail } : {}),
      line: range.start.line + 1,
      endLine: range.end.line + 1,
      depth,
    };
    return [entry, ...('children' in symbol ? flattenSymbols(symbol.children, depth + 1) : [])];
  });
}

const SEVERITIES: Readonly<Record<vscode.DiagnosticSeverity, SourceDiagnostic['severity']>> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function toDiagnostic(uri: vscode.Uri, diagnostic: vscode.Diagnostic): SourceDiagnostic {
  const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
  return {
    path: uri.fsPath,
    line: diagnostic.range.start.line + 1,
    character: diagnostic.range.start.character + 1,
    severity: SEVERITIES[diagnostic.severity],
    message: diagnostic.message,
    ...(diagnostic.source ? { source: diagnostic.source } : {}),
    ...(code !== undefined ? { code: String(code) } : {}),
  };
}

export function createLanguageFeatures(): LanguageFeatures {
  return {
    async definition(path, line, character) {
      const uri = await load(path);
      const found = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(
        'vscode.executeDefinitionProvider',
        uri,
        position(line, character),
      );
      return (found ?? []).map(toRange);
    },
    async references(path, line, character) {
      const uri = await load(path);
      const found = await vscode.commands.executeCommand<vscode.Location[] | undefined>(
        'vscode.executeReferenceProvider',
        uri,
        position(line, character),
      );
      return (found ?? []).map(toRange);
    },
    async hover(path, line, character) {
      const uri = await load(path);
      const hovers = await vscode.commands.executeCommand<vscode.Hover[] | undefined>(
        'vscode.executeHoverProvider',
        uri,
        position(line, character),
      );
      return (hovers ?? []).flatMap((hover) => hover.contents.map(hoverText)).filter((text) => text.trim() !== '');
    },
    async symbols(path) {
      const uri = await load(path);
      const symbols = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
        'vscode.executeDocumentSymbolProvider',
        uri,
      );
      return flattenSymbols(symbols ?? []);
    },
    async diagnostics(path) {
      const below = (uri: vscode.Uri): boolean => uri.fsPath === path || uri.fsPath.startsWith(path.endsWith(sep) ? path : `${path}${sep}`);
      return vscode.languages
        .getDiagnostics()
        .filter(([uri]) => uri.scheme === 'file' && below(uri))
        .flatMap(([uri, diagnostics]) => diagnostics.map((diagnostic) => toDiagnostic(uri, diagnostic)));
    },
  };
}
