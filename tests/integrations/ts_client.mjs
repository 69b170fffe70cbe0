// The TypeScript SDK's client driving a stdio MCP server, for the record tests.
//
//   node ts_client.mjs NODE_MODULES COMMAND [ARGS...]
//
// NODE_MODULES is where @modelcontextprotocol/sdk is installed (.venv/node/node_modules:
// an ES module does not look in NODE_PATH). The client lists the tools and calls `echo`,
// `get-tiny-image` (an image block) and `gzip-file-as-resource` (an embedded resource of a
// data: URI, so nothing is fetched), then writes one JSON object to stdout: every message
// it sent and received, in order, and the results. Every step is bounded.
import { createRequire } from "node:module";
import { join } from "node:path";

const [nodeModules, command, ...args] = process.argv.slice(2);
const require = createRequire(join(nodeModules, "ts_client.cjs"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const BOUND_MS = 20000;
setTimeout(() => {
  console.error("ts_client: no answer in time");
  process.exit(3);
}, 4 * BOUND_MS).unref();

// Sees every message both ways, then hands it on (the Client sets the callbacks).
class Tap {
  constructor(inner) {
    this.inner = inner;
    this.messages = [];
    inner.onmessage = (message, extra) => {
      this.messages.push(["server_to_client", message]);
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }
  start() { return this.inner.start(); }
  send(message, options) {
    this.messages.push(["client_to_server", message]);
    return this.inner.send(message, options);
  }
  close() { return this.inner.close(); }
  setProtocolVersion(version) { this.inner.setProtocolVersion?.(version); }
}

const transport = new Tap(new StdioClientTransport({ command, args, stderr: "inherit" }));
const client = new Client({ name: "agentforge-ts-test", version: "0" });
const options = { timeout: BOUND_MS };
await client.connect(transport, options);
const text = "Hello from the TypeScript client";
const results = {
  tools: (await client.listTools(undefined, options)).tools.map((tool) => tool.name).sort(),
  echo: await client.callTool({ name: "echo", arguments: { message: "hi" } }, undefined,
                              options),
  image: await client.callTool({ name: "get-tiny-image", arguments: {} }, undefined, options),
  resource: await client.callTool({
    name: "gzip-file-as-resource",
    arguments: { name: "hello.txt.gz", outputType: "resource",
                 data: `data:text/plain;base64,${Buffer.from(text).toString("base64")}` },
  }, undefined, options),
};
await client.close();
process.stdout.write(JSON.stringify({ messages: transport.messages, results }) + "\n");
