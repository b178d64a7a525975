import { z } from 'zod';

/** The samplers OTEL_TRACES_SAMPLER names (the OpenTelemetry SDK's own names). */
export const samplerNames = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof samplerNames)[number];

/** The protocols OTEL_EXPORTER_OTLP_PROTOCOL names that this server exports in (OTLP over HTTP). */
export const exportProtocols = ['http/protobuf', 'http/json'] as const;

const httpUrl = z
  .string()
  .optional()
  .transform((text, context) => {
    if (text === undefined || text === '') return undefined;
    const url = URL.canParse(text) ? new URL(text) : null;
    if (!url || !['http:', 'https:'].includes(url.protocol)) {
      context.addIssue({ code: 'custom', message: 'must be an http:// or https:// URL of an OTLP/HTTP receiver, like http://collector:4318' });
      return z.NEVER;
    }
    return url.toString();
  });

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
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(exportProtocols, { message: `must be ${exportProtocols.join(' or ')} (gRPC is not supported)` }).default('http/protobuf'),
  OTEL_SERVICE_NAME: z.string().min(1).default('hallowgate'),
  /**
   * Unset: parentbased_traceidratio at OTEL_TRACES_SAMPLER_ARG or 0.1, so an idle default keeps the
   * cost of a busy gateway small while a caller's sampled trace is always continued.
   */
  OTEL_TRACES_SAMPLER: z.enum(samplerNames, { message: `must be one of ${samplerNames.join(', ')}` }).optional(),
  /** The ratio of the traceidratio samplers, from 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
};

export type TracingSettings = z.infer<z.ZodObject<typeof tracingSettingsSchema>>;

/** Where spans go: the traces endpoint as given, else the base endpoint's /v1/traces; undefined when tracing is off. */
export function tracesUrlOf(settings: TracingSettings): string | undefined {
  if (settings.OTEL_SDK_DISABLED) return undefined;
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base && `${base.replace(/\/$/, '')}/v1/traces`;
}

/** The sampler and ratio in force: an unset sampler is parent-based at the ratio (0.1 unless given). */
export function samplingOf(settings: TracingSettings): { sampler: SamplerName; ratio: number } {
  if (!settings.OTEL_TRACES_SAMPLER) return { sampler: 'parentbased_traceidratio', ratio: settings.OTEL_TRACES_SAMPLER_ARG ?? 0.1 };
  // The SDK's default ratio when a traceidratio sampler is named without one.
  return { sampler: settings.OTEL_TRACES_SAMPLER, ratio: settings.OTEL_TRACES_SAMPLER_ARG ?? 1 };
}
