"""Settings for what an operator watches: structured logs, error reports, metrics."""
