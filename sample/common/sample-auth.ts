import { hashMcpPassword, type McpAuthOptions } from 'nest-mcp';

/** The scopes every sample credential grants. */
const SCOPES = ['notes:read', 'notes:write'];

/**
 * The sample's authentication, from `MCP_AUTH` (`none`, `bearer`, `apikey` or `basic`) and
 * `MCP_AUTH_SECRET` (the token, the API key, or `user:password`), so that each provider can be
 * tried by hand:
 *
 * ```bash
 * MCP_AUTH=bearer MCP_AUTH_SECRET=s3cret npm start
 * curl -s http://127.0.0.1:3000/mcp -H 'authorization: Bearer s3cret' ...
 * ```
 */
export async function sampleAuth(
  mode: string | undefined,
  secret: string | undefined,
): Promise<McpAuthOptions | undefined> {
  const kind = (mode ?? 'none').trim().toLowerCase();
  if (kind === 'none' || kind === '') {
    return undefined;
  }
  if (secret === undefined || secret.length === 0) {
    throw new Error(`MCP_AUTH=${kind} needs MCP_AUTH_SECRET (${kind === 'basic' ? 'user:password' : 'the secret'})`);
  }
  switch (kind) {
    case 'bearer':
      return { bearer: { tokens: { [secret]: { id: 'sample-user', scopes: SCOPES } } } };
    case 'apikey':
      return { apiKey: { keys: { [secret]: { id: 'sample-key', scopes: SCOPES } } } };
    case 'basic': {
      const colon = secret.indexOf(':');
      if (colon <= 0) {
        throw new Error('MCP_AUTH=basic needs MCP_AUTH_SECRET as user:password');
      }
      const user = secret.slice(0, colon);
      const passwordHash = await hashMcpPassword(secret.slice(colon + 1));
      return { basic: { users: { [user]: { passwordHash, scopes: SCOPES } } } };
    }
    default:
      throw new Error(`MCP_AUTH must be none, bearer, apikey or basic (got "${mode}")`);
  }
}
