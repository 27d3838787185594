/**
 * API keys in a header (`X-API-Key` by default, or `Authorization: ApiKey <key>`), looked up in
 * constant time. Keys may be configured as `sha256:<hex>` digests.
 */
import type { McpApiKeyOptions, McpAuthRequest } from '../interfaces/mcp-auth-options.interface';
import { authorization, challenge, headerOf, toPrincipal, type AuthOutcome, type Authenticator } from './authenticator';
import { CredentialTable } from './credential-table';

export class ApiKeyAuthenticator implements Authenticator {
  readonly headers: readonly string[];
  private readonly header: string;
  private readonly table = new CredentialTable();
  private readonly challenge: string;

  constructor(options: McpApiKeyOptions) {
    this.header = (options.header ?? 'x-api-key').toLowerCase();
    this.headers = [this.header, 'authorization'];
    for (const [key, principal] of Object.entries(options.keys)) {
      this.table.add(key, toPrincipal(principal));
    }
    this.challenge = challenge('ApiKey', [['header', this.header]]);
  }

  authenticate(request: McpAuthRequest): Promise<AuthOutcome> {
    const key = headerOf(request, this.header) ?? authorization(request, 'apikey');
    if (key === undefined || key.length === 0) {
      return Promise.resolve(this.refuse('invalid_request', `The ${this.header} header is required`));
    }
    const principal = this.table.find(key);
    return Promise.resolve(
      principal === undefined ? this.refuse('invalid_token', 'The API key is not valid') : { ok: true, principal },
    );
  }

  private refuse(error: string, description: string): AuthOutcome {
    return { ok: false, status: 401, challenge: this.challenge, error, description };
  }
}
