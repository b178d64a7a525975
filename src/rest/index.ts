import { bookingRoutes } from './bookings.js';
import { directoryRoutes } from './directory.js';
import { adminRoutes } from './admin.js';
import { webhookRoutes } from './webhooks.js';
import { documentRoutes } from './documents.js';
import { usageRoutes } from './usage.js';
import type { RestRoute } from './routes.js';

export const restRoutes: RestRoute[] = [...bookingRoutes, ...directoryRoutes, ...adminRoutes, ...webhookRoutes, ...documentRoutes, ...usageRoutes];
