/**
 * What a user downloads and what VS Code loads at activation (issue 5, "Packaging"): packages a
 * production .vsix with the same code as `npm run package` and reports both sizes.
 */
import type { BenchResult } from './run';
import { packageExtension } from '../scripts/package';

export default async function packageSize(): Promise<BenchResult[]> {
  const packaged = await packageExtension(() => undefined);
  const kib = (bytes: number): number => bytes / 1024;
  return [
    {
      name: 'packaged .vsix size',
      value: kib(packaged.vsixBytes),
      unit: 'KiB',
      detail: `${packaged.target}, includes bin/rg and sql-wasm.wasm`,
    },
    {
      name: 'dist/extension.js size (loaded at activation)',
      value: kib(packaged.bundleBytes),
      unit: 'KiB',
      detail: 'production build, minified',
    },
  ];
}
