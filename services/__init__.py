"""АРМ КА recognition subsystem: arm-core, tabular-parser, scan-gateway and their shared code."""
