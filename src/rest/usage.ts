import { AppError } from '../shared/errors.js';
import { ApiKeyUsageDocument, ViewerUsageDocument, type UsageGranularity, type UsageReportFragment } from './__generated__/graphql.js';
import { runOperation } from './operation.js';
import type { RestRequest, RestRoute } from './routes.js';
import { snakeCaseKeys } from './shape.js';

function parameter(request: RestRequest, name: string, required: boolean): string | undefined {
  const values = request.query.getAll(name);
  const problem = values.length > 1 ? `Send ${name} once.` : required && !values[0] ? `${name} is required.` : undefined;
  if (problem) throw new AppError('invalid_parameter', problem, { fieldErrors: [{ field: name, code: values.length > 1 ? 'repeated' : 'missing', message: problem }] });
  return values[0] || undefined;
}

/** from, to (ISO timestamps) and granularity (`minute`, `hour` — the default — or `day`) as the operation's variables. */
function rangeVariables(request: RestRequest) {
  return {
    from: parameter(request, 'from', true)!,
    to: parameter(request, 'to', true)!,
    // The schema's enum answers any other word with 400 invalid_parameter naming `granularity`.
    granularity: parameter(request, 'granularity', false)?.toUpperCase() as UsageGranularity | undefined,
  };
}

function usageJson(report: UsageReportFragment) {
  return snakeCaseKeys({ ...report, granularity: report.granularity.toLowerCase() });
}

export const usageRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/v1/usage',
    async handle(request) {
      const { viewer } = await runOperation(ViewerUsageDocument, rangeVariables(request), request.context);
      return { status: 200, body: usageJson(viewer.usage) };
    },
  },
  {
    method: 'GET',
    path: '/v1/admin/api_keys/:id/usage',
    async handle(request) {
      const { apiKeyUsage } = await runOperation(ApiKeyUsageDocument, { keyId: request.params['id']!, ...rangeVariables(request) }, request.context);
      return { status: 200, body: usageJson(apiKeyUsage) };
    },
  },
];
