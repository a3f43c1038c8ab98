"""Audio features for the speech datasets (``OggZipDataset``, ``LibriSpeechCorpus``): :class:`ExtractAudioFeatures`,
the ``audio`` option dict of those datasets, at the reference's path ``returnn.datasets.util.feature_extraction``.

Audio is read with ``soundfile``; the spectral features are computed with ``librosa`` (as the reference does), so
they equal the reference's on the same audio (checked to <= 1e-4 in the tests). With ``window_len`` / ``step_len``
in seconds, ``n_fft = win = int(window_len * sample_rate)`` and ``hop = int(step_len * sample_rate)``; frames are
centered (``librosa``'s default: ``1 + len // hop`` frames):

- ``"mfcc"``: ``librosa.feature.mfcc`` (``n_mfcc = num_feature_filters``) of ``power_to_db`` of 128 mel bands by
  default, whose coefficient 0 is replaced by the frame RMS energy (``librosa.feature.rms(y=...)``), as the
  reference;
  ``feature_options``: ``n_mels``, ``fmin``, ``fmax``, ``center``
- ``"log_mel_filterbank"``: ``log(max(mel_power, 1e-3))`` of the mel power spectrogram as
  ``librosa.feature.melspectrogram`` computes it (librosa's STFT and mel filters; ``n_mels =
  num_feature_filters``); no ``feature_options``
- ``"log_log_mel_filterbank"``: ``20 * log10(max(|log_mel_filterbank|, 1e-10))``
- ``"db_mel_filterbank"``: ``20 * log10(max(mel_power, min_amp))`` (``min_amp`` 1e-10); ``feature_options``:
  ``fmin``, ``fmax``, ``min_amp``, ``center``
- ``"linear_spectrogram"``: ``|STFT|`` with ``n_fft = 2 * num_feature_filters`` (must be >= the window length),
  without the DC bin: ``num_feature_filters`` bins; ``feature_options``: ``center``
- ``"raw"``: the waveform itself, ``[T, 1]`` (``[T, C, 1]`` with ``num_channels``)
- a callable ``(audio, sample_rate, window_len, step_len, num_feature_filters, **feature_options) -> [T, dim]``

Order of the steps (observed from the reference): ``sample_rate`` check, ``preemphasis`` (``y[t] = x[t] - a *
x[t-1]``, ``y[0] = x[0]``, ``scipy.signal.lfilter`` in float64), ``peak_normalization`` (``x / max|x|``; all-zero
audio stays zero),
``random_permute`` (training augmentation), ``pre_process(audio=, sample_rate=, random_state=)``, the features,
``with_delta`` (``librosa.feature.delta`` of order 1..n appended), ``join_frames`` (``n`` consecutive frames
concatenated; the last group padded by repeating the last frame), ``norm_mean`` / ``norm_std_dev`` (over the
final feature dim), ``post_process(feature_data, seq_name=)``; result ``float32 [T, dim]``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Optional, Union

import numpy as np

from returnn.errors import DatasetArgError, DataFileError
from returnn.util.files import DataFileNotFoundError

FEATURE_TYPES = ("mfcc", "log_mel_filterbank", "log_log_mel_filterbank", "db_mel_filterbank", "linear_spectrogram",
                 "raw")


def _librosa():
    try:
        import librosa
    except ImportError as exc:  # pragma: no cover - librosa is a requirement
        raise DatasetArgError(f"audio features need the 'librosa' package (pip install librosa): {exc}") from None
    return librosa


def _frame_params(sample_rate: int, window_len: float, step_len: float):
    return int(window_len * sample_rate), int(step_len * sample_rate)


@functools.lru_cache(maxsize=32)
def _mel_basis(sample_rate: int, n_fft: int, n_mels: int, fmin: float, fmax: Optional[float], dtype: str
               ) -> np.ndarray:
    """``librosa.filters.mel`` (cached: computing it costs as much as the features of a short utterance)."""
    return _librosa().filters.mel(sr=sample_rate, n_fft=n_fft, n_mels=n_mels, fmin=fmin, fmax=fmax,
                                  dtype=np.dtype(dtype))


def _mel_power_ft(audio, sample_rate, n_fft, hop, n_mels, fmin=0.0, fmax=None, center=True) -> np.ndarray:
    """``librosa.feature.melspectrogram`` (power 2, Hann window, centered with zero padding) as ``[n_mels, T]``:
    librosa's STFT and mel filters, the projection as one BLAS matrix product (librosa's own einsum is several
    times slower; the values agree to float rounding)."""
    librosa = _librosa()
    spec = np.abs(librosa.stft(audio, n_fft=n_fft, hop_length=hop, center=center, pad_mode="constant")) ** 2
    basis = _mel_basis(sample_rate, n_fft, n_mels, fmin, fmax, str(spec.dtype))
    with _single_thread_blas():  # a small product: BLAS threads only contend (10x slower on a busy machine)
        return basis.dot(spec)


_blas_controller: Dict[str, Any] = {}  # pid -> threadpoolctl.ThreadpoolController


def _single_thread_blas():
    """A context limiting the BLAS libraries to one thread. The libraries are looked up once per process (a
    ``threadpool_limits`` per call scans every loaded shared library: ~7 ms, a quarter of the time of reading a
    3-s utterance)."""
    import os

    controller = _blas_controller.get(os.getpid())
    if controller is None:
        try:
            from threadpoolctl import ThreadpoolController  # installed with librosa (via scikit-learn)
        except ImportError:  # pragma: no cover
            import contextlib

            return contextlib.nullcontext()
        controller = _blas_controller.setdefault(os.getpid(), ThreadpoolController())
    return controller.limit(limits=1, user_api="blas")


def get_audio_features_mfcc(audio, sample_rate, window_len=0.025, step_len=0.01, num_feature_filters=40,
                            n_mels=128, fmin=0, fmax=None, center=True) -> np.ndarray:
    """MFCCs ``[T, num_feature_filters]``; coefficient 0 is the frame RMS energy (see the module doc)."""
    librosa = _librosa()
    n_fft, hop = _frame_params(sample_rate, window_len, step_len)
    mel = _mel_power_ft(audio, sample_rate, n_fft, hop, n_mels, fmin, fmax, center)
    mfcc = librosa.feature.mfcc(S=librosa.power_to_db(mel), n_mfcc=num_feature_filters)
    energy = librosa.feature.rms(y=audio, hop_length=hop, frame_length=n_fft, center=center)
    mfcc[0] = energy[0]
    return mfcc.T


def _mel_power(audio, sample_rate, window_len, step_len, num_feature_filters, fmin=0.0, fmax=None, center=True
               ) -> np.ndarray:
    n_fft, hop = _frame_params(sample_rate, window_len, step_len)
    return _mel_power_ft(audio, sample_rate, n_fft, hop, num_feature_filters, fmin, fmax, center).T


def get_audio_log_mel_filterbank(audio, sample_rate, window_len=0.025, step_len=0.01,
                                 num_feature_filters=80) -> np.ndarray:
    """``log(max(mel power, 1e-3))``, ``[T, num_feature_filters]``."""
    mel = _mel_power(audio, sample_rate, window_len, step_len, num_feature_filters)
    return np.log(np.maximum(mel, 1e-3))


def get_audio_log_log_mel_filterbank(audio, sample_rate, window_len=0.025, step_len=0.01,
                                     num_feature_filters=80) -> np.ndarray:
    """``20 * log10(max(|log mel filterbank|, 1e-10))``, ``[T, num_feature_filters]``."""
    log_mel = get_audio_log_mel_filterbank(audio, sample_rate, window_len, step_len, num_feature_filters)
    return 20.0 * np.log10(np.maximum(np.abs(log_mel), 1e-10))


def get_audio_db_mel_filterbank(audio, sample_rate, window_len=0.025, step_len=0.01, num_feature_filters=80,
                                fmin=0, fmax=None, min_amp=1e-10, center=True) -> np.ndarray:
    """``20 * log10(max(mel power, min_amp))``, ``[T, num_feature_filters]``."""
    mel = _mel_power(audio, sample_rate, window_len, step_len, num_feature_filters, fmin=fmin, fmax=fmax,
                     center=center)
    return 20.0 * np.log10(np.maximum(mel, min_amp))


def get_audio_linear_spectrogram(audio, sample_rate, window_len=0.025, step_len=0.01, num_feature_filters=512,
                                 center=True) -> np.ndarray:
    """``|STFT|`` without the DC bin, ``[T, num_feature_filters]`` (``n_fft = 2 * num_feature_filters``).

    :raises DatasetArgError: ``2 * num_feature_filters`` shorter than the window
    """
    librosa = _librosa()
    win, hop = _frame_params(sample_rate, window_len, step_len)
    n_fft = num_feature_filters * 2
    if n_fft < win:
        raise DatasetArgError(f"audio features 'linear_spectrogram': num_feature_filters={num_feature_filters} "
                              f"gives n_fft={n_fft}, shorter than the window ({win} samples = window_len "
                              f"{window_len} s at {sample_rate} Hz); use num_feature_filters >= {(win + 1) // 2}")
    spec = np.abs(librosa.stft(audio, n_fft=n_fft, hop_length=hop, win_length=win, center=center))
    return spec[1:].T


_FEATURE_FUNCS: Dict[str, Callable] = {
    "mfcc": get_audio_features_mfcc,
    "log_mel_filterbank": get_audio_log_mel_filterbank,
    "log_log_mel_filterbank": get_audio_log_log_mel_filterbank,
    "db_mel_filterbank": get_audio_db_mel_filterbank,
    "linear_spectrogram": get_audio_linear_spectrogram,
}


def get_random_permuted_audio(audio: np.ndarray, sample_rate: int, opts: Dict[str, Any],
                              random_state: np.random.RandomState) -> np.ndarray:
    """Training augmentation (``random_permute``): a random gain and, with probability ``rnd_zoom_switch``, a
    random time stretch.

    Options: ``rnd_scale_lower`` / ``rnd_scale_upper`` (gain range, default 0.8 / 1.0), ``rnd_zoom_switch``
    (probability, default 0.2), ``rnd_zoom_lower`` / ``rnd_zoom_upper`` (stretch factor range, default 0.9 /
    1.1), ``rnd_zoom_order`` (spline order of ``scipy.ndimage.zoom``, default 3). The option names are the
    reference's; the random stream is this project's own (augmentation is random in both).
    """
    import scipy.ndimage

    known = {"rnd_scale_lower", "rnd_scale_upper", "rnd_zoom_switch", "rnd_zoom_lower", "rnd_zoom_upper",
             "rnd_zoom_order"}
    unknown = sorted(set(opts) - known)
    if unknown:
        from returnn.util.suggest import close_matches

        sugg = close_matches(unknown[0], sorted(known))
        raise DatasetArgError(f"audio option 'random_permute': unknown option {unknown[0]!r}"
                              + (f" (did you mean {sugg[0]!r}?)" if sugg else "") + f"; known: {sorted(known)}")
    scale = random_state.uniform(opts.get("rnd_scale_lower", 0.8), opts.get("rnd_scale_upper", 1.0))
    audio = audio * scale
    if random_state.uniform(0.0, 1.0) < opts.get("rnd_zoom_switch", 0.2):
        factor = random_state.uniform(opts.get("rnd_zoom_lower", 0.9), opts.get("rnd_zoom_upper", 1.1))
        audio = scipy.ndimage.zoom(audio, factor, order=int(opts.get("rnd_zoom_order", 3)))
    return audio


def _load_feature_vec(value: Union[None, str, float, np.ndarray], what: str) -> Union[None, float, np.ndarray]:
    """``norm_mean`` / ``norm_std_dev``: None, a number, a numpy array, or a text file of numbers (whitespace or
    newline separated, as ``numpy.loadtxt`` reads)."""
    if value is None or isinstance(value, (int, float, np.ndarray)):
        return value
    if isinstance(value, str):
        import os

        if not os.path.exists(value):
            raise DataFileNotFoundError(value, f"audio option {what!r}: file does not exist")
        try:
            return np.loadtxt(value, ndmin=1)
        except (ValueError, UnicodeDecodeError) as exc:
            raise DataFileError(value, f"audio option {what!r}: expected a text file of numbers "
                                       f"(numpy.loadtxt): {exc}") from None
    raise DatasetArgError(f"audio option {what!r}: expected a file name, a number or a numpy array, got "
                          f"{type(value).__name__}: {value!r}")


class ExtractAudioFeatures:
    """Computes features from a waveform (see the module doc for the steps and feature types).

    :param window_len: seconds (default 0.025)
    :param step_len: seconds (default 0.01)
    :param num_feature_filters: feature dim before deltas; default 40 (1 for ``"raw"``); required for
        ``"linear_spectrogram"``
    :param with_delta: False/0, True/1 or n: append the deltas of order 1..n
    :param norm_mean: subtracted: number, array ``[dim]`` or file (``numpy.loadtxt``)
    :param norm_std_dev: divided by: number, array ``[dim]`` or file
    :param features: a name from :data:`FEATURE_TYPES` or a callable
    :param feature_options: extra kwargs of the feature function (see the module doc)
    :param random_permute: None, True (default options) or a dict of options of
        :func:`get_random_permuted_audio`; needs ``random_state``
    :param random_state: ``numpy.random.RandomState`` for ``random_permute`` / ``pre_process``
    :param pre_process: ``(audio, sample_rate, random_state) -> audio``
    :param post_process: ``(feature_data, seq_name) -> feature_data``
    :param sample_rate: expected sample rate of the audio (no resampling, as the reference)
    :param num_channels: only with ``"raw"``: keep this many channels, output ``[T, C, 1]``
    :param peak_normalization: divide by the maximum absolute sample (default True)
    :param preemphasis: coefficient ``a`` or None
    :param join_frames: concatenate this many consecutive frames
    :raises DatasetArgError: an unknown feature name, options that do not fit together
    """

    def __init__(self, window_len=0.025, step_len=0.01, num_feature_filters=None, with_delta=False, norm_mean=None,
                 norm_std_dev=None, features="mfcc", feature_options=None, random_permute=None, random_state=None,
                 raw_ogg_opts=None, pre_process=None, post_process=None, sample_rate=None, num_channels=None,
                 peak_normalization=True, preemphasis=None, join_frames=None):
        if not callable(features) and features not in FEATURE_TYPES:
            from returnn.errors import UnknownNameError
            from returnn.util.suggest import close_matches

            raise UnknownNameError(kind="audio feature type", name=str(features), context="audio option 'features'",
                                   suggestions=close_matches(str(features), FEATURE_TYPES), known=FEATURE_TYPES)
        if num_channels is not None and features != "raw":
            raise DatasetArgError(f"audio option 'num_channels'={num_channels!r}: multiple channels are only "
                                  f"supported with features='raw', got features={features!r}")
        self.window_len = window_len
        self.step_len = step_len
        if num_feature_filters is None:
            if features == "raw":
                num_feature_filters = 1
            elif features == "linear_spectrogram":
                raise DatasetArgError("audio features 'linear_spectrogram' need num_feature_filters (the number of "
                                      "frequency bins, n_fft / 2)")
            elif callable(features):
                raise DatasetArgError("audio option 'features' is a function: num_feature_filters (its output dim) "
                                      "must be given")
            else:
                num_feature_filters = 40
        self.num_feature_filters = int(num_feature_filters)
        if isinstance(with_delta, bool):
            with_delta = 1 if with_delta else 0
        self.with_delta = int(with_delta or 0)
        self.norm_mean = _load_feature_vec(norm_mean, "norm_mean")
        self.norm_std_dev = _load_feature_vec(norm_std_dev, "norm_std_dev")
        self.features = features
        self.feature_options = dict(feature_options or {})
        if random_permute is True:
            random_permute = {}
        # True: the default options ({}); None / False: off
        self.random_permute_opts = random_permute if isinstance(random_permute, dict) else None
        if random_permute is not None and random_permute is not False and not isinstance(random_permute, dict):
            raise DatasetArgError(f"audio option 'random_permute': expected None, True or a dict of options, got "
                                  f"{type(random_permute).__name__}: {random_permute!r}")
        self.random_state = random_state
        self.raw_ogg_opts = raw_ogg_opts
        self.pre_process = pre_process
        self.post_process = post_process
        self.sample_rate = sample_rate
        self.num_channels = num_channels
        self.peak_normalization = peak_normalization
        self.preemphasis = preemphasis
        self.join_frames = join_frames
        dim = self.get_feature_dimension()
        for what, vec in (("norm_mean", self.norm_mean), ("norm_std_dev", self.norm_std_dev)):
            if isinstance(vec, np.ndarray) and vec.shape not in ((dim,), ()):
                raise DatasetArgError(f"audio option {what!r}: expected {dim} values (the feature dim, deltas and "
                                      f"joined frames included), got shape {vec.shape}")

    def get_feature_dimension(self) -> int:
        """``num_feature_filters * (1 + with_delta) * join_frames``."""
        return self.num_feature_filters * (1 + self.with_delta) * (self.join_frames or 1)

    def get_audio_features_from_raw_bytes(self, raw_bytes, seq_name: Optional[str] = None) -> np.ndarray:
        """Features of an encoded audio file's bytes (any format ``soundfile`` reads).

        :param raw_bytes: a file-like object or ``bytes``
        :raises DataFileError: the bytes are no audio ``soundfile`` can read (naming ``seq_name``)
        """
        import io

        import soundfile

        if isinstance(raw_bytes, (bytes, bytearray)):
            raw_bytes = io.BytesIO(raw_bytes)
        try:
            audio, sample_rate = soundfile.read(raw_bytes)  # float64, as the reference
        except (RuntimeError, soundfile.LibsndfileError, TypeError) as exc:
            raise DataFileError(str(seq_name), f"cannot decode the audio with soundfile: {exc}") from None
        return self.get_audio_features(audio, sample_rate, seq_name=seq_name)

    def _check_channels(self, audio: np.ndarray, seq_name: Optional[str]) -> np.ndarray:
        if audio.ndim == 1:
            if self.num_channels is not None:
                audio = audio[:, None]
            return audio
        if audio.ndim == 2 and self.num_channels is not None:
            if audio.shape[1] != self.num_channels:
                raise DataFileError(str(seq_name), f"audio has {audio.shape[1]} channels, audio option "
                                                   f"num_channels={self.num_channels}")
            return audio
        if audio.ndim == 2 and audio.shape[1] == 1:
            return audio[:, 0]
        raise DataFileError(str(seq_name), f"audio has shape {audio.shape} ({audio.shape[-1]} channels): only mono "
                                           f"audio is supported, or features='raw' with num_channels")

    def get_audio_features(self, audio: np.ndarray, sample_rate: int, seq_name: Optional[str] = None) -> np.ndarray:
        """Features of a waveform.

        :param audio: ``float [T]`` mono (``[T, C]`` with ``num_channels``)
        :param sample_rate: Hz
        :param seq_name: used in error messages and passed to ``post_process``
        :return: ``float32 [frames, get_feature_dimension()]`` (``[T, C, 1]`` for raw with ``num_channels``)
        :raises DataFileError: a sample rate other than ``sample_rate``, more channels than supported
        """
        if self.sample_rate is not None and sample_rate != self.sample_rate:
            raise DataFileError(str(seq_name), f"audio has sample rate {sample_rate} Hz, audio option sample_rate="
                                               f"{self.sample_rate} (no resampling is done, as the reference)")
        audio = self._check_channels(np.asarray(audio), seq_name)
        if self.preemphasis:
            import scipy.signal

            # float64 output, as the reference (its features on pre-emphasized audio are computed in float64)
            audio = scipy.signal.lfilter([1.0, -self.preemphasis], [1.0], audio, axis=0)
        if self.peak_normalization:
            peak = np.max(np.abs(audio)) if audio.size else 0.0
            if peak > 0:
                audio = audio / peak
        if self.random_permute_opts is not None:
            if self.random_state is None:
                raise DatasetArgError("audio option 'random_permute' needs a random_state (the datasets give one)")
            audio = get_random_permuted_audio(audio, sample_rate, self.random_permute_opts, self.random_state)
        if self.pre_process:
            audio = self.pre_process(audio=audio, sample_rate=sample_rate, random_state=self.random_state)
        feature_data = self._features(audio, sample_rate)
        if self.with_delta:
            librosa = _librosa()
            parts = [feature_data]
            for order in range(1, self.with_delta + 1):
                parts.append(librosa.feature.delta(feature_data, order=order, axis=0))
            feature_data = np.concatenate(parts, axis=-1)
        if self.join_frames:
            feature_data = _join_frames(feature_data, int(self.join_frames))
        if self.norm_mean is not None:
            feature_data = feature_data - self.norm_mean
        if self.norm_std_dev is not None:
            feature_data = feature_data / self.norm_std_dev
        if self.post_process:
            feature_data = self.post_process(feature_data, seq_name=seq_name)
        if callable(self.features):
            return feature_data
        return np.asarray(feature_data, dtype=np.float32)

    def _features(self, audio: np.ndarray, sample_rate: int) -> np.ndarray:
        if self.features == "raw":
            return audio[..., None].astype(np.float32)
        func = self.features if callable(self.features) else _FEATURE_FUNCS[self.features]
        try:
            return func(audio=audio, sample_rate=sample_rate, window_len=self.window_len, step_len=self.step_len,
                        num_feature_filters=self.num_feature_filters, **self.feature_options)
        except TypeError as exc:
            if self.feature_options and "unexpected keyword" in str(exc):
                raise DatasetArgError(f"audio option 'feature_options' {self.feature_options!r} does not fit "
                                      f"features={self.features!r}: {exc}") from None
            raise


def _join_frames(data: np.ndarray, n: int) -> np.ndarray:
    """``[T, D] -> [ceil(T / n), n * D]``: ``n`` consecutive frames concatenated, the last group padded by
    repeating the last frame."""
    num = data.shape[0]
    if num == 0:
        return data.reshape((0, data.shape[1] * n))
    out_len = -(-num // n)
    pad = out_len * n - num
    if pad:
        data = np.concatenate([data, np.repeat(data[-1:], pad, axis=0)], axis=0)
    return data.reshape((out_len, n * data.shape[1]))


def make_feature_extractor(audio: Dict[str, Any], where: str) -> ExtractAudioFeatures:
    """:class:`ExtractAudioFeatures` from a dataset's ``audio`` option dict.

    :raises DatasetArgError: an option it does not take, naming the closest one (e.g. ``norm_std`` ->
        ``norm_std_dev``)
    """
    import inspect

    from returnn.util.suggest import close_matches

    known = [p for p in inspect.signature(ExtractAudioFeatures.__init__).parameters if p != "self"]
    for key in audio:
        if key not in known:
            sugg = close_matches(key, known)
            raise DatasetArgError(f"{where} option 'audio': unknown option {key!r}"
                                  + (f"\n  did you mean: {', '.join(repr(x) for x in sugg)}?" if sugg else "")
                                  + f"\n  accepted: {', '.join(known)}")
    return ExtractAudioFeatures(**audio)
