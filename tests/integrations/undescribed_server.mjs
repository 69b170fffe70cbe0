// An MCP server written with the official TypeScript SDK and zod, as a Node project
// writes one: one parameter without .describe(), one with a format Gemini refuses.
// Its argument is the node_modules folder that holds the SDK (make install's .venv/node).
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.argv[2], "server.js"));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const server = new McpServer({ name: "undescribed", version: "1.0.0" });
server.registerTool("tag_items", {
  description: "Tag the items of an order.",
  inputSchema: {
    items: z.array(z.string()).min(1),
    order: z.string().uuid().describe("The order."),
  },
}, async ({ items }) => ({ content: [{ type: "text", text: items.join(",") }] }));
await server.connect(new StdioServerTransport());
