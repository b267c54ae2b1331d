/** POST {SERVER_API_PREFIX}/users/{id}/enable: as `souk users enable` (docs/server-api.md); the handler is disable's. */
import { standingRoute } from './disable.js';

export const serverEnableRoutes = standingRoute(false, '/users/:id/enable');
