/**
 * The `zuno` command (package.json `bin`). Everything but the process itself lives in
 * src/cli/main.ts (commands in src/cli/).
 */
import { runCli } from './cli/main';

const signals = ['SIGINT', 'SIGTERM'] as const;

void runCli({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  onSignal(handler) {
    const listeners = signals.map((signal) => [signal, () => handler(signal)] as const);
    for (const [signal, listener] of listeners) process.on(signal, listener);
    return () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    };
  },
  exit: (code) => process.exit(code),
}).then((code) => {
  // Exit explicitly, once stdout has taken the last line: idle keep-alive sockets must not hold the process.
  process.stdout.write('', () => process.exit(code));
});
