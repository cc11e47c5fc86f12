// The workspace's .vscode/mcp.json (issue 11): VS Code's format read into Zuno's server entries,
// and each server's standing against the user's decisions, bound to its definition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config';
import { parseWorkspaceMcpFile, withWorkspaceServers, workspaceMcpStanding } from '../../../src/core/mcp-workspace';

const variables = { workspaceFolder: '/work/project', userHome: '/home/me' };

const vscodeFile = `{
  // VS Code allows comments and trailing commas here.
  "inputs": [
    { "type": "promptString", "id": "api-key", "description": "The service's API key", "password": true },
  ],
  "servers": {
    "local": {
      "type": "stdio",
      "command": "node",
      "args": ["\${workspaceFolder}/tools/server.js", "--home", "\${userHome}"],
      "env": { "API_KEY": "\${input:api-key}", "PATH_HINT": "\${env:PATH}" },
    },
    "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${input:api-key}" } },
    "legacy": { "type": "sse", "url": "https://old.example.com/sse" },
  },
}`;

test("issue 11: .vscode/mcp.json in VS Code's format (comments, inputs, stdio, http, sse) becomes Zuno server entries", () => {
  const file = parseWorkspaceMcpFile(vscodeFile, variables);
  assert.deepEqual(file.problems, []);
  assert.deepEqual(file.inputs, [{ id: 'api-key', description: "The service's API key", password: true }]);
  const [local, remote, legacy] = file.servers;
  assert.equal(local?.server.command, 'node');
  assert.deepEqual(
    local?.server.args,
    ['/work/project/tools/server.js', '--home', '/home/me'],
    '${workspaceFolder} and ${userHome} are substituted',
  );
  assert.deepEqual(
    local?.server.env,
    { API_KEY: '${input:api-key}', PATH_HINT: '${env:PATH}' },
    'secrets stay references, resolved only when the server starts',
  );
  assert.equal(local?.server.trust, false, 'a server of the workspace file is untrusted');
  assert.equal(local?.summary, 'node ${workspaceFolder}/tools/server.js --home ${userHome}');
  assert.equal(remote?.server.url, 'https://mcp.example.com/mcp');
  assert.deepEqual(remote?.server.headers, { Authorization: 'Bearer ${input:api-key}' });
  assert.equal(legacy?.server.url, 'https://old.example.com/sse');
});

test('issue 11: what cannot be used is named and skipped, never guessed: unknown variables, undeclared inputs, envFile, bad JSON', () => {
  const file = parseWorkspaceMcpFile(
    JSON.stringify({
      servers: {
        odd: { command: 'x', args: ['${command:pickFile}'] },
        undeclared: { command: 'x', env: { TOKEN: '${input:nope}' } },
        withEnvFile: { command: 'x', envFile: '${workspaceFolder}/.env' },
        neither: { type: 'stdio' },
        weird: { type: 'websocket', url: 'ws://x' },
      },
    }),
    variables,
  );
  assert.deepEqual(
    file.servers.map((server) => server.name),
    ['withEnvFile'],
  );
  assert.match(file.problems.join('\n'), /servers\.odd is not used: \$\{command:pickFile\} is a variable Zuno does not support/);
  assert.match(file.problems.join('\n'), /servers\.undeclared is not used: \$\{input:nope\} names no entry of "inputs"/);
  assert.match(
    file.problems.join('\n'),
    /servers\.withEnvFile\.envFile is not read: secrets come from SecretStorage or the environment, never from a file/,
  );
  assert.match(file.problems.join('\n'), /servers\.neither is not used: a stdio server needs "command"/);
  assert.match(file.problems.join('\n'), /servers\.weird is not used: "type" is "websocket"/);
  const broken = parseWorkspaceMcpFile('{"servers": {', variables);
  assert.deepEqual(broken.servers, []);
  assert.match(broken.problems[0] ?? '', /\.vscode\/mcp\.json cannot be read as JSON/);
});

test('issue 11: a workspace server starts only once approved for its exact definition; a change asks again; a decline is kept', () => {
  const file = parseWorkspaceMcpFile(vscodeFile, variables);
  const hashOf = (name: string): string => file.servers.find((server) => server.name === name)?.hash ?? '';
  const fresh = workspaceMcpStanding(file, {}, {});
  assert.deepEqual(fresh.approved, {});
  assert.deepEqual(
    fresh.pending.map((entry) => [entry.name, entry.changed]),
    [
      ['local', false],
      ['remote', false],
      ['legacy', false],
    ],
  );

  const decided = workspaceMcpStanding(
    file,
    {
      local: { hash: hashOf('local'), approved: true },
      remote: { hash: hashOf('remote'), approved: false },
      legacy: { hash: 'sha256:old', approved: true, trust: true },
    },
    {},
  );
  assert.deepEqual(Object.keys(decided.approved), ['local']);
  assert.equal(decided.approved.local?.trust, false);
  assert.deepEqual(
    decided.declined.map((entry) => entry.name),
    ['remote'],
  );
  assert.deepEqual(
    decided.pending.map((entry) => [entry.name, entry.changed]),
    [['legacy', true]],
    'an approval of another definition does not carry over',
  );

  const changedCommand = parseWorkspaceMcpFile(vscodeFile.replace('"command": "node"', '"command": "sh"'), variables);
  assert.notEqual(changedCommand.servers[0]?.hash, hashOf('local'));
  assert.deepEqual(workspaceMcpStanding(changedCommand, { local: { hash: hashOf('local'), approved: true } }, {}).approved, {});

  const trusted = workspaceMcpStanding(file, { local: { hash: hashOf('local'), approved: true, trust: true } }, {});
  assert.equal(trusted.approved.local?.trust, true, "trust is the user's, recorded with the approval");
});

test("issue 11: a name mcp.servers already defines is the config's: the file's entry is neither listed nor merged", () => {
  const file = parseWorkspaceMcpFile(vscodeFile, variables);
  const config = parseConfig({ mcp: { servers: { local: { command: 'mine' } } } });
  const standing = workspaceMcpStanding(file, {}, config.mcp.servers);
  assert.ok(!standing.pending.some((entry) => entry.name === 'local'));
  const remote = file.servers[1];
  assert.ok(remote);
  const merged = withWorkspaceServers(config, { remote: remote.server });
  assert.equal(merged.mcp.servers.local?.command, 'mine');
  assert.equal(merged.mcp.servers.remote?.url, 'https://mcp.example.com/mcp');
});
