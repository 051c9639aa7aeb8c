import { AppBridge, type McpUiHostContext, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult } from '@modelcontextprotocol/server';

/*
 * A small MCP Apps host for the browser tests, built on ext-apps's own AppBridge: it renders a view in a sandboxed
 * iframe, 360 px wide like a chat column, answers the handshake, hands the view the tool's input and result, and
 * passes the view's tools/call to `hostCallTool`, which the test wires to a real MCP gateway (the page itself
 * talks to no server).
 */

declare global {
  interface Window {
    hostCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
    openView(html: string, input: Record<string, unknown>, result: CallToolResult, theme: 'light' | 'dark'): Promise<void>;
    setHostContext(context: McpUiHostContext): Promise<void>;
    viewInitialized?: boolean;
  }
}

let bridge: AppBridge | undefined;

window.openView = async (html, input, result, theme) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
  iframe.style.cssText = 'width:360px;height:600px;border:0;display:block';
  document.body.append(iframe);
  const context: McpUiHostContext = { theme, displayMode: 'inline', containerDimensions: { maxWidth: 360 }, platform: 'web' };
  bridge = new AppBridge(null, { name: 'views-test-host', version: '1.0.0' }, { serverTools: {} }, { hostContext: context });
  bridge.oncalltool = (params) => window.hostCallTool(params) as never;
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.ceil(height)}px`;
  };
  const initialized = new Promise<void>((resolve) => (bridge!.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
  await initialized;
  window.viewInitialized = true;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result as never);
};

window.setHostContext = async (context) => {
  await bridge!.sendHostContextChange(context);
};
