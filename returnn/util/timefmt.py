"""Human-readable durations and sizes, in the formats of the reference's log lines."""

from __future__ import annotations


def hms(seconds: float) -> str:
    """Formats a duration as ``H:MM:SS`` (hours unbounded, seconds truncated), e.g. ``hms(3725.9) == "1:02:05"``.

    Used in ``train epoch N, finished after S steps, H:MM:SS elapsed``.
    """
    total = int(seconds)
    minutes, secs = divmod(total, 60)
    hours, minutes = divmod(minutes, 60)
    return "%d:%02d:%02d" % (hours, minutes, secs)


def hms_fraction(seconds: float, decimals: int = 4) -> str:
    """Formats a duration as ``H:MM:SS.ffff`` with ``decimals`` fractional digits, e.g. ``"0:00:01.2500"``."""
    minutes, secs = divmod(float(seconds), 60.0)
    hours, minutes = divmod(int(minutes), 60)
    width = 3 + decimals if decimals > 0 else 2
    return "%d:%02d:%0*.*f" % (hours, minutes, width, decimals, secs)


def human_bytes_size(num_bytes: float, factor: int = 1024, fmt: str = "%.2f") -> str:
    """Formats a byte count, e.g. ``human_bytes_size(1536) == "1.50KB"``."""
    value = float(num_bytes)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(value) < factor or unit == "TB":
            return (fmt % value) + unit if unit != "B" else "%iB" % value
        value /= factor
    raise AssertionError("unreachable")
