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


def human_size(n: float, factor: int = 1000, frac: float = 0.8, prec: int = 1) -> str:
    """Formats a count with the units K, M, G, T as the reference does, e.g. ``human_size(1234567) == "1.2M"``.

    A value up to ``factor * frac`` is printed as is (``human_size(800) == "800"``); above, it is divided by
    ``factor`` until it is at most ``factor * frac`` (or the unit is T) and printed with ``prec`` decimals
    (``human_size(801) == "0.8K"``).
    """
    return _human(n, factor, frac, prec, "")


def human_bytes_size(n: float, factor: int = 1024, frac: float = 0.8, prec: int = 1) -> str:
    """Formats a byte count as the reference does (``Deleted 1.2MB.``): :func:`human_size` with ``factor``
    1024 and a ``B`` suffix, e.g. ``human_bytes_size(819) == "819B"``, ``human_bytes_size(1536) == "1.5KB"``."""
    return _human(n, factor, frac, prec, "B")


def _human(n: float, factor: int, frac: float, prec: int, suffix: str) -> str:
    if n <= factor * frac:
        return "%s%s" % (n, suffix)
    value = n / factor
    units = ("K", "M", "G", "T")
    i = 0
    while value > factor * frac and i < len(units) - 1:
        value /= factor
        i += 1
    return "%.*f%s%s" % (prec, value, units[i], suffix)
