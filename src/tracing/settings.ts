import { z } from 'zod';

/** The samplers OTEL_TRACES_SAMPLER names (the OpenTelemetry SDK's own names). */
export const samplerNames = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof samplerNames)[number];

/** The protocols OTEL_EXPORTER_OTLP_PROTOCOL names that this server exports in (OTLP over HTTP). */
export const exportProtocols = ['http/protobuf', 'http/json'] as const;

/** As OpenTelemetry's environment specification reads a variable: empty (or blank) is unset, as compose and Helm templates leave them. */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema);

const httpUrl = unsetWhenEmpty(
  z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined) return undefined;
      const url = URL.canParse(text) ? new URL(text) : null;
      if (!url || !['http:', 'https:'].includes(url.protocol)) {
        context.addIssue({ code: 'custom', message: 'must be an http:// or https:// URL of an OTLP/HTTP receiver, like http://collector:4318' });
        return z.NEVER;
      }
      return url.toString();
    }),
);

/** An enumerated value as the specification reads one: in any case, spaces around it ignored. */
const anyCase = <T extends z.ZodType>(schema: T) => unsetWhenEmpty(z.preprocess((value) => (typeof value === 'string' ? value.trim().toLowerCase() : value), schema));

const exportProtocol = z.enum(exportProtocols, { message: `must be ${exportProtocols.join(' or ')} (gRPC is not supported)` });

/** An HTTP header's name (a token), and a value of visible Latin-1 characters, spaces and tabs, as Node sends one. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const isHeaderValue = (value: string) => [...value].every((character) => character === '\t' || (character >= ' ' && character <= '\u00ff' && character !== '\u007f'));

/** Headers the exporter's own request sets, or that would break it: not a collector's to be given. */
const managedHeaders = new Set([
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'expect',
  'host',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * `key=value` pairs, comma-separated, each value percent-encoded (the W3C Baggage octets), as the
 * specification writes OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_HEADERS. A malformed pair is
 * refused, never dropped: a backend's API key with a typo would otherwise have every export refused
 * without a word. Headers (`headers`) are checked for what a request can send, and a refusal never
 * quotes their values, which are often a backend's API key.
 */
const keyValuePairs = (headers = false) =>
  z
    .string()
    .optional()
    .transform((text, context) => {
      const pairs: Record<string, string> = {};
      for (const [index, pair] of (text ?? '').split(',').entries()) {
        if (pair.trim() === '') continue;
        const at = pair.indexOf('=');
        const key = at > 0 ? pair.slice(0, at).trim() : '';
        let value: string | undefined;
        try {
          value = at > 0 ? decodeURIComponent(pair.slice(at + 1).trim()) : undefined;
        } catch {
          value = undefined;
        }
        const validHeader = headerName.test(key) && !managedHeaders.has(key.toLowerCase()) && (value === undefined || isHeaderValue(value));
        if (!key || value === undefined || (headers && !validHeader)) {
          const named = !headers ? `"${pair.trim()}"` : headerName.test(key) ? `the pair for ${key}` : `pair ${index + 1}`;
          const managed = headers && managedHeaders.has(key.toLowerCase()) ? ` (${key} is the exporter's own to set)` : '';
          context.addIssue({ code: 'custom', message: `must be key=value pairs separated by commas, values percent-encoded; ${named} is not one${managed}` });
          return z.NEVER;
        }
        pairs[key] = value;
      }
      return pairs;
    });

const exportHeaders = keyValuePairs(true);

/**
 * The standard OpenTelemetry variables that turn tracing on and shape it (README, Configuration):
 * the SDK's own names and meanings, checked at start like every other setting.
 */
export const tracingSettingsSchema = {
  /** `true` turns tracing off whatever else is set. */
  OTEL_SDK_DISABLED: z
    .string()
    .optional()
    .transform((value) => value?.trim().toLowerCase() === 'true'),
  /** The collector's base URL: traces go to its /v1/traces. Unset (with no traces endpoint): tracing is off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  /** The full URL traces are sent to, instead of the base URL's /v1/traces. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: anyCase(exportProtocol.default('http/protobuf')),
  /** The protocol of traces alone, over OTEL_EXPORTER_OTLP_PROTOCOL. */
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: anyCase(exportProtocol.optional()),
  /** Headers sent with every export (a backend's API key), as `name=value` pairs. */
  OTEL_EXPORTER_OTLP_HEADERS: exportHeaders,
  /** Headers of the exports of traces alone, over OTEL_EXPORTER_OTLP_HEADERS'. */
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: exportHeaders,
  /** The service's name; unset, the one OTEL_RESOURCE_ATTRIBUTES gives, else hallowgate. */
  OTEL_SERVICE_NAME: unsetWhenEmpty(z.string().optional()),
  /** More attributes of the resource (deployment.environment.name=prod,…). */
  OTEL_RESOURCE_ATTRIBUTES: keyValuePairs(),
  /**
   * Unset: parentbased_traceidratio at OTEL_TRACES_SAMPLER_ARG or 0.1, so an idle default keeps the
   * cost of a busy gateway small while a caller's sampled trace is always continued.
   */
  OTEL_TRACES_SAMPLER: anyCase(z.enum(samplerNames, { message: `must be one of ${samplerNames.join(', ')}` }).optional()),
  /** The ratio of the traceidratio samplers, from 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: unsetWhenEmpty(z.coerce.number().min(0).max(1).optional()),
};

export type TracingSettings = z.infer<z.ZodObject<typeof tracingSettingsSchema>>;

/**
 * Where spans go: the traces endpoint as given, else the base endpoint with /v1/traces added to its
 * path (its query kept, as a collector's tenant may be named there); undefined when tracing is off.
 */
export function tracesUrlOf(settings: TracingSettings): string | undefined {
  if (settings.OTEL_SDK_DISABLED) return undefined;
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!settings.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  const url = new URL(settings.OTEL_EXPORTER_OTLP_ENDPOINT);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/v1/traces`;
  return url.toString();
}

/** The headers every export sends: the exporters', with the traces' own over them. */
export const exportHeadersOf = (settings: TracingSettings): Record<string, string> => ({
  ...settings.OTEL_EXPORTER_OTLP_HEADERS,
  ...settings.OTEL_EXPORTER_OTLP_TRACES_HEADERS,
});

/** The protocol spans are sent in: the traces' own, else the exporter's. */
export const tracesProtocolOf = (settings: TracingSettings) => settings.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? settings.OTEL_EXPORTER_OTLP_PROTOCOL;

/** The sampler and ratio in force: an unset sampler is parent-based at the ratio (0.1 unless given). */
export function samplingOf(settings: TracingSettings): { sampler: SamplerName; ratio: number } {
  if (!settings.OTEL_TRACES_SAMPLER) return { sampler: 'parentbased_traceidratio', ratio: settings.OTEL_TRACES_SAMPLER_ARG ?? 0.1 };
  // The SDK's default ratio when a traceidratio sampler is named without one.
  return { sampler: settings.OTEL_TRACES_SAMPLER, ratio: settings.OTEL_TRACES_SAMPLER_ARG ?? 1 };
}
