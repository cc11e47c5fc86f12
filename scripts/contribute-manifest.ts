// Writes the extension's contributions (commands, view, settings, activation events) into
// package.json from src/hosts/vscode/manifest.ts. Run after changing a command or a config key:
//   node --import tsx scripts/contribute-manifest.ts
// test/unit/hosts/vscode/manifest.test.ts fails while package.json is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contributedManifest } from '../src/hosts/vscode/manifest';

const path = join(__dirname, '..', 'package.json');
const manifest = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const generated = contributedManifest();
manifest.categories = generated.categories;
manifest.icon = generated.icon;
manifest.extensionKind = generated.extensionKind;
manifest.capabilities = generated.capabilities;
manifest.activationEvents = generated.activationEvents;
manifest.contributes = generated.contributes;
writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(
  `package.json: ${Object.keys(generated.contributes).join(', ')} and the categories, icon, capabilities and activationEvents written.`,
);
