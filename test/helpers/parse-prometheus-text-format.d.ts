// Types of the Prometheus text parser the metrics test uses (the package ships none).
declare module 'parse-prometheus-text-format' {
  export interface PrometheusSample {
    labels?: Record<string, string>
    value?: string
    /** Histograms and summaries. */
    count?: string
    sum?: string
    buckets?: Record<string, string>
  }
  export default function parsePrometheusTextFormat(text: string): { name: string; help: string; type: string; metrics: PrometheusSample[] }[]
}
