// A request handler a server takes from the layer above it (the command line), so a route whose work
// belongs to a higher layer (POST /v1/traces turns spans into runs) is one line in the server's routing.
import type http from 'node:http';

export type HttpRoute = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
