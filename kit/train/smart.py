"""SMART (Jiang et al. 2020): a smoothness-inducing adversarial regulariser, as a wrapper around any BERT model.

``SMART(model, backbone)`` is a Keras model to ``compile`` and ``fit`` like any other; its training loss adds
``lambda_s · R_s``, comparing the outputs on clean and adversarially perturbed embedding outputs (the algorithm and its
differences from the paper: :class:`SMART`). The noise gradient is the one backend-specific piece (``_noise_grad_jax``,
``_tensorflow``, ``_torch``).

>>> import numpy as np
>>> from kit.models import BertBackbone, build_classifier
>>> bb = BertBackbone(vocabulary_size=30, num_layers=1, num_heads=2, hidden_dim=8,
...                   intermediate_dim=16, max_sequence_length=8)
>>> smart = SMART(build_classifier(bb, 3), bb, lambda_s=1.0)
>>> smart.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
>>> x = {"token_ids": np.ones((4, 8), "int32"), "segment_ids": np.zeros((4, 8), "int32"),
...      "padding_mask": np.ones((4, 8), "int32")}
>>> logs = smart.fit(x, np.array([0, 1, 2, 0]), epochs=1, verbose=0).history
>>> sorted(logs), logs["smart_loss"][0] > 0
(['loss', 'smart_loss'], True)
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from dataclasses import dataclass

import keras
from keras import ops

KINDS = ("kl", "bernoulli", "mse")
NORMS = ("inf", "l2")


# --- the one backend-specific piece: d(scalar fn)/d(noise) -----------------------------------------------------


def _noise_grad_jax(fn, noises):
    import jax

    return jax.lax.stop_gradient(jax.grad(fn)(list(noises)))


def _noise_grad_tensorflow(fn, noises):
    import tensorflow as tf

    noises = [tf.convert_to_tensor(n) for n in noises]
    with tf.GradientTape() as tape:
        tape.watch(noises)
        value = fn(noises)
    grads = tape.gradient(value, noises, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return [tf.stop_gradient(g) for g in grads]


def _noise_grad_torch(fn, noises):
    import torch

    noises = [keras.ops.convert_to_tensor(n).detach().requires_grad_(True) for n in noises]  # NumPy noise too
    with torch.enable_grad():
        value = fn(noises)
        grads = torch.autograd.grad(value, noises, allow_unused=True)
    return [torch.zeros_like(n) if g is None else g.detach() for g, n in zip(grads, noises)]


def noise_grad(fn, noises):
    """Stopped gradients of the scalar ``fn(noises)`` with respect to each tensor (or array) in ``noises``, in order.

    jax's ``grad``, TensorFlow's ``GradientTape`` or torch's ``autograd``; an unconnected noise gets a zero gradient.

    Raises:
        NotImplementedError: a backend other than jax, tensorflow or torch.
    """
    backend = keras.backend.backend()
    helpers = {"jax": _noise_grad_jax, "tensorflow": _noise_grad_tensorflow, "torch": _noise_grad_torch}
    if backend not in helpers:
        raise NotImplementedError(
            f"SMART needs gradients with respect to the noise; the {backend!r} backend has "
            "none. Use KERAS_BACKEND=jax, tensorflow or torch."
        )
    return list(helpers[backend](fn, list(noises)))


# --- divergences (float32, per example) ------------------------------------------------------------------------


def _kl_rows(log_p, log_q):
    """KL(p || q) per row from log-probabilities (last axis summed)."""
    return ops.sum(ops.exp(log_p) * (log_p - log_q), axis=-1)


def _bernoulli_kl_rows(z_p, z_q):
    """KL(Bernoulli(sigmoid z_p) || Bernoulli(sigmoid z_q)), summed over the last axis (independent logits)."""
    lp1, lp0 = ops.log_sigmoid(z_p), ops.log_sigmoid(-z_p)
    lq1, lq0 = ops.log_sigmoid(z_q), ops.log_sigmoid(-z_q)
    return ops.sum(ops.exp(lp1) * (lp1 - lq1) + ops.exp(lp0) * (lp0 - lq0), axis=-1)


def _rows(x):
    x = ops.cast(x, "float32")
    return ops.expand_dims(x, -1) if len(x.shape) == 1 else x


def inner_divergence(kind, adv, clean):
    """Per-example float32 divergence the ascent step climbs: D(f(e+noise) || f(e)), ``clean`` held fixed.

    ``kind``: ``"kl"`` (``KL(stop(p) || p_adv)`` of the softmaxes), ``"bernoulli"`` (its one-logit sigmoid form) or
    ``"mse"`` (squared error summed over the last axis); ``adv`` and ``clean`` are logits.
    """
    adv, clean = _rows(adv), ops.stop_gradient(_rows(clean))
    if kind == "kl":
        return _kl_rows(ops.log_softmax(clean, axis=-1), ops.log_softmax(adv, axis=-1))
    if kind == "bernoulli":
        return _bernoulli_kl_rows(clean, adv)
    return ops.sum(ops.square(adv - clean), axis=-1)


def smoothness_divergence(kind, adv, clean):
    """Per-example float32 term of R_s: a symmetric KL with each side's target stopped, or the mean squared error.

    ``kind``: ``"kl"`` or ``"bernoulli"`` (``KL(stop(adv) || clean) + KL(stop(clean) || adv)`` of the softmaxes or
    sigmoids) or ``"mse"`` (mean over the last axis); ``adv`` and ``clean`` are logits.
    """
    adv, clean = _rows(adv), _rows(clean)
    if kind == "kl":
        la, lc = ops.log_softmax(adv, axis=-1), ops.log_softmax(clean, axis=-1)
        return _kl_rows(ops.stop_gradient(la), lc) + _kl_rows(ops.stop_gradient(lc), la)
    if kind == "bernoulli":
        return _bernoulli_kl_rows(ops.stop_gradient(adv), clean) + _bernoulli_kl_rows(ops.stop_gradient(clean), adv)
    return ops.mean(ops.square(adv - clean), axis=-1)


# --- which divergence a compiled loss asks for ------------------------------------------------------------------

_LOSS_KINDS = {
    "sparse_categorical_crossentropy": "kl",
    "categorical_crossentropy": "kl",
    "binary_crossentropy": "bernoulli",
    "binary_focal_crossentropy": "bernoulli",
    "mean_squared_error": "mse",
    "mse": "mse",
    "mean_absolute_error": "mse",
    "mae": "mse",
    "huber": "mse",
    "log_cosh": "mse",
    "mean_squared_logarithmic_error": "mse",
}


def _loss_kind(loss) -> str | None:
    """'kl' | 'bernoulli' | 'mse' for a Keras loss (object, class name, string or function); None for no loss."""
    if loss is None:
        return None
    if isinstance(loss, str):
        name = loss
    elif isinstance(loss, keras.losses.Loss):
        name = getattr(loss, "fn", None).__name__ if hasattr(loss, "fn") else type(loss).__name__
    else:
        name = getattr(loss, "__name__", type(loss).__name__)
    key = name.lower().replace("loss", "").strip("_")
    key = {
        "sparsecategoricalcrossentropy": "sparse_categorical_crossentropy",
        "categoricalcrossentropy": "categorical_crossentropy",
        "binarycrossentropy": "binary_crossentropy",
        "binaryfocalcrossentropy": "binary_focal_crossentropy",
        "meansquarederror": "mean_squared_error",
        "meanabsoluteerror": "mean_absolute_error",
        "logcosh": "log_cosh",
    }.get(key, key)
    if key not in _LOSS_KINDS:
        raise ValueError(
            f"SMART(loss='auto') cannot tell which divergence goes with the loss {name!r}. Pass "
            f"loss='kl' (softmax logits), 'bernoulli' (one sigmoid logit) or 'mse' (regression), "
            f"or a dict of these per output."
        )
    kind = _LOSS_KINDS[key]
    if kind in ("kl", "bernoulli"):
        logits = loss.get_config().get("from_logits", False) if isinstance(loss, keras.losses.Loss) else False
        if not logits:
            example = type(loss).__name__ if isinstance(loss, keras.losses.Loss) else "SparseCategoricalCrossentropy"
            raise ValueError(
                f"SMART compares logits, but the loss {name!r} expects probabilities "
                f"(from_logits=False). Let the model output logits and compile with e.g. "
                f"keras.losses.{example}(from_logits=True)."
            )
    return kind


def _check_kind(kind, where):
    if kind is not None and kind not in KINDS:
        raise ValueError(
            f"Unknown SMART loss kind {kind!r}{where}: use one of {KINDS} "
            f"(or 'auto' to read it from the compiled loss)."
        )


def _flat(structure):
    """[(key, value)] for a tensor (key None), a dict (sorted keys) or a list/tuple (indices)."""
    if isinstance(structure, dict):
        return sorted(structure.items(), key=lambda kv: str(kv[0]))
    if isinstance(structure, (list, tuple)):
        return list(enumerate(structure))
    return [(None, structure)]


def _pick(structure, key):
    """The entry of a loss / sample-weight structure that belongs to output ``key``."""
    if structure is None or not isinstance(structure, (dict, list, tuple)):
        return structure
    if isinstance(structure, dict):
        if key is None and len(structure) == 1:
            return next(iter(structure.values()))
        return structure.get(key)
    if key is None and len(structure) == 1:
        return structure[0]
    return structure[key] if isinstance(key, int) and key < len(structure) else None


# --- where the noise goes ---------------------------------------------------------------------------------------


def _embedding_layer(backbone):
    """The layer whose output is BERT's embedding output (after LayerNorm and dropout)."""
    for attr in ("embeddings_dropout", "embeddings_layer_norm"):
        layer = getattr(backbone, attr, None)
        if layer is not None:
            return layer
    raise ValueError(
        f"{getattr(backbone, 'name', backbone)!r} is not a BERT backbone: SMART needs one with "
        "`embeddings_layer_norm`/`embeddings_dropout` (keras-hub BertBackbone or kit's BertBackbone)."
    )


def _expand_backbones(backbone):
    if isinstance(backbone, (list, tuple)):
        return [b for item in backbone for b in _expand_backbones(item)]
    if hasattr(backbone, "backbones") and not hasattr(backbone, "embeddings_layer_norm"):
        return list(backbone.backbones)  # a kit multitask model: every encoder that embeds the input
    return [backbone]


@contextlib.contextmanager
def _add_to_output(layers, noises):
    """While active, each layer's output gets its noise added (the layer's ``call`` is wrapped, then restored)."""
    saved = []
    for layer, noise in zip(layers, noises):
        had = "call" in layer.__dict__
        saved.append((layer, had, layer.__dict__.get("call")))
        original = layer.call

        def call(*args, _original=original, _noise=noise, **kwargs):
            out = _original(*args, **kwargs)
            return out + ops.cast(_noise, out.dtype)

        object.__setattr__(layer, "call", call)
    try:
        yield
    finally:
        for layer, had, previous in reversed(saved):
            if had:
                object.__setattr__(layer, "call", previous)
            else:
                object.__delattr__(layer, "call")


@dataclass(frozen=True)
class SmartNoise:
    """How SMART draws and sharpens its noise: the paper's ``epsilon``, ``sigma``, ``eta``, the ascent steps, the norm.

    Attributes:
        epsilon: stabiliser of the normalisation (no ε-ball projection, as in the reference).
        sigma: standard deviation of the initial noise.
        eta: ascent step size.
        steps: ascent steps (0: random noise only).
        norm: ``"inf"`` (per-token max-abs) or ``"l2"`` (per-token L2) normalisation.

    Raises:
        ValueError: ``epsilon`` <= 0, ``sigma`` or ``eta`` < 0, ``steps`` not an integer >= 0, or an unknown norm.

    Example:
        >>> SmartNoise(sigma=1e-2, steps=2)
        SmartNoise(epsilon=1e-06, sigma=0.01, eta=0.001, steps=2, norm='inf')
    """

    epsilon: float = 1e-6
    sigma: float = 1e-5
    eta: float = 1e-3
    steps: int = 1
    norm: str = "inf"

    def __post_init__(self):
        if self.epsilon <= 0:
            raise ValueError(f"epsilon must be > 0 (it keeps the normalisation finite), got {self.epsilon}.")
        if self.sigma < 0 or self.eta < 0:
            raise ValueError(f"sigma and eta must be >= 0, got sigma={self.sigma}, eta={self.eta}.")
        if int(self.steps) != self.steps or self.steps < 0:
            raise ValueError(f"steps must be an integer >= 0, got {self.steps}.")
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}, got {self.norm!r}.")
        for name in ("epsilon", "sigma", "eta"):  # plain numbers: the config is JSON
            object.__setattr__(self, name, float(getattr(self, name)))
        object.__setattr__(self, "steps", int(self.steps))


def _smart_noise(noise) -> SmartNoise:
    """``noise`` as a :class:`SmartNoise` (a dict, a saved config's, becomes one; None: the defaults)."""
    if noise is None:
        return SmartNoise()
    if isinstance(noise, dict):
        return SmartNoise(**noise)
    if not isinstance(noise, SmartNoise):
        raise TypeError(f"noise must be a SmartNoise (or a dict of its fields), got {type(noise).__name__}.")
    return noise


@keras.saving.register_keras_serializable(package="kit")
class SMART(keras.Model):
    """``model`` trained with the SMART loss: task loss + ``lambda_s · R_s``.

    The reference code's algorithm (namisan/mt-dnn ``mt_dnn/perturbation.py``, archinetai/smart-pytorch, which SerBERTus
    used): noise ``normal * sigma`` on the embedding output (after its LayerNorm and dropout); ``steps`` times, add
    ``eta`` times the noise gradient of the batch sum of :func:`inner_divergence`, then divide by the per-token norm
    plus ``epsilon``; ``R_s`` is the batch mean of :func:`smoothness_divergence`. As in the reference code, unlike the
    paper's Algorithm 1 (mt-dnn #214, #224; smart-pytorch #2): no ``epsilon``-ball projection (the noise is a unit
    direction per token), the step added before normalising, no Bregman proximal term (use AdamW, as SerBERTus).

    Where the references differ or err: the forward continues in the same backbone call (embeddings applied once; mt-dnn
    #230 applies them twice); ``R_s`` a batch mean (smart-pytorch sums: λ scales with the batch), the ascent loss a
    batch sum (as mt-dnn); regression error element by element (mt-dnn broadcasts ``[B]`` against ``[B, 1]``); a
    non-finite noise gradient becomes 0; padding gets noise (attention masks it); each forward draws its own dropout
    masks.

    Sample weights weigh ``R_s`` per example (multitask: only the active task's head counts). ``R_s`` is logged as
    ``smart_loss`` in training (``val_smart_loss``: 0); ``loss`` is the total. ``lambda_s=0`` still logs R_s, training
    as plain (exactly, without dropout); ``steps=1`` costs two extra forwards and one backward per step.

    Args:
        model: a Keras model with logit (or regression) outputs; one, or several (a dict, e.g. one head per task).
        backbone: the BERT backbone in ``model`` whose embedding output is perturbed (a list for several; a kit
            multitask model stands for all its encoders).
        lambda_s: weight of ``R_s`` (SerBERTus: 1 to 12; 0 logs R_s without using it).
        noise: a :class:`SmartNoise` or a dict of its fields (default: the reference code's).
        loss: ``"auto"`` (from the compiled loss: cross-entropy → ``"kl"``, binary → ``"bernoulli"``, MSE/MAE/Huber →
            ``"mse"``), one kind for every output, or ``{output: kind or None}``.
        seed: the noise's seed.
        **kwargs: ``keras.Model`` arguments (``name`` defaults to ``smart_<model's name>``).

    Raises:
        ValueError: ``lambda_s`` < 0, a bad :class:`SmartNoise`, an unknown kind, or a backbone not part of ``model``.
        TypeError: ``noise`` is neither a :class:`SmartNoise` nor a dict.
    """

    def __init__(
        self,
        model,
        backbone,
        lambda_s: float = 1.0,
        noise: SmartNoise | dict | None = None,
        loss="auto",
        seed=None,
        **kwargs,
    ):
        kwargs.setdefault("name", f"smart_{model.name}")
        super().__init__(**kwargs)
        if lambda_s < 0:
            raise ValueError(f"lambda_s must be >= 0, got {lambda_s}.")
        noise = _smart_noise(noise)
        if isinstance(loss, dict):
            for key, kind in loss.items():
                _check_kind(kind, f" for output {key!r}")
        elif loss != "auto":
            _check_kind(loss, "")
        self.model = model
        self.lambda_s, self.noise, self.loss_kind, self.seed = float(lambda_s), noise, loss, seed
        # plain tuples, not tracked: these layers already belong to ``model`` (saved once, through it)
        object.__setattr__(self, "_backbones", tuple(self._find_backbones(model, backbone)))
        object.__setattr__(self, "_embedding_layers", tuple(_embedding_layer(b) for b in self._backbones))
        self.seed_generator = keras.random.SeedGenerator(seed)
        self.smart_loss_tracker = keras.metrics.Mean(name="smart_loss")
        self._compiled_loss = None

    @staticmethod
    def _find_backbones(model, backbone):
        inside = {id(layer): layer for layer in model._flatten_layers(include_self=True, recursive=True)}
        by_name = {}
        for layer in inside.values():
            by_name.setdefault(layer.name, layer)
        found = []
        for b in _expand_backbones(backbone):
            if isinstance(b, str):
                if b not in by_name:
                    raise ValueError(f"SMART: no layer named {b!r} in model {model.name!r}.")
                b = by_name[b]
            layer = _embedding_layer(b)
            if any(layer is _embedding_layer(f) for f in found):
                continue  # the same encoder named twice
            if id(layer) not in inside:
                raise ValueError(
                    f"SMART: the backbone {b.name!r} is not part of the model {model.name!r}, so noise "
                    "on its embeddings would change nothing. Pass the backbone the model was built "
                    "from (after loading a model, take it from the loaded model)."
                )
            found.append(b)
        if not found:
            raise ValueError("SMART needs at least one backbone to perturb.")
        encoders = getattr(model, "backbones", None)  # a kit multitask model with one encoder per task
        if encoders and not {id(e) for e in encoders} <= {id(b) for b in found}:
            warnings.warn(
                f"SMART perturbs {len(found)} of the {len(encoders)} encoders of {model.name!r}; the "
                "other tasks get no R_s. Pass the model itself as the backbone to perturb them all.",
                stacklevel=3,
            )
        return found

    @property
    def backbones(self) -> list:
        """The encoders whose embedding output gets the noise."""
        return list(self._backbones)

    @property
    def embedding_layers(self) -> list:
        """The layers the noise is added after (each backbone's embedding dropout, which follows its LayerNorm)."""
        return list(self._embedding_layers)

    # --- Keras plumbing ---------------------------------------------------------------------------------------
    def call(self, inputs, training=None):
        return self.model(inputs, training=training)

    def build(self, input_shape=None):
        self.built = True

    def compile(self, optimizer="rmsprop", loss=None, **kwargs):
        self._compiled_loss = loss
        outputs = getattr(self.model, "outputs", None)
        if outputs is not None and loss is not None:  # functional model: check the kinds now, not mid-fit
            structure = self.model._outputs_struct if hasattr(self.model, "_outputs_struct") else outputs
            self._kinds(structure)
        super().compile(optimizer=optimizer, loss=loss, **kwargs)

    def compile_from_config(self, config):
        # Keras skips compile() on load when a model overrides it; SMART's compile only records the loss.
        config = keras.saving.deserialize_keras_object(config)
        self.compile(**config)
        if self.built:
            self.optimizer.build(self.trainable_variables)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "model": keras.saving.serialize_keras_object(self.model),
                "backbone": [b.name for b in self.backbones],
                "lambda_s": self.lambda_s,
                "noise": dataclasses.asdict(self.noise),
                "loss": self.loss_kind,
                "seed": self.seed,
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["model"] = keras.saving.deserialize_keras_object(config["model"])
        flat = {f.name: config.pop(f.name) for f in dataclasses.fields(SmartNoise) if f.name in config}
        if flat:  # a file saved before the noise was one argument
            config["noise"] = {**config.get("noise", {}), **flat}
        return cls(**config)

    # --- SMART ------------------------------------------------------------------------------------------------
    def _kinds(self, y_pred):
        """[(key, kind)] per output: which divergence R_s uses there (None: no R_s)."""
        flat = _flat(y_pred)
        kinds = []
        for key, _ in flat:
            if self.loss_kind == "auto":
                if self._compiled_loss is None:
                    raise ValueError(
                        "SMART(loss='auto') reads the divergence from the compiled loss: compile the "
                        "model with a loss first, or pass loss='kl' | 'bernoulli' | 'mse'."
                    )
                kind = _loss_kind(_pick(self._compiled_loss, key))
            elif isinstance(self.loss_kind, dict):
                kind = self.loss_kind.get(key)
            else:
                kind = self.loss_kind
            kinds.append((key, kind))
        if all(kind is None for _, kind in kinds):
            raise ValueError("SMART: no output has a divergence (all losses are None).")
        return kinds

    def _noise_shape(self, x):
        ids = x.get("token_ids") if isinstance(x, dict) else None
        if ids is None:
            got = f"keys {sorted(x)}" if isinstance(x, dict) else type(x).__name__
            raise ValueError(
                "SMART needs the preprocessor's dict as input (token_ids, segment_ids, padding_mask) "
                f"to size the noise; got {got}."
            )
        shape = ops.shape(ids)
        return [(shape[0], shape[1], b.hidden_dim) for b in self.backbones]

    def initial_noise(self, x):
        """One ``(batch, sequence, hidden_dim)`` normal noise (std ``sigma``) per backbone; ``x`` needs ``token_ids``.

        Raises:
            ValueError: ``x`` is not a dict with ``token_ids``.
        """
        return [keras.random.normal(s, stddev=self.noise.sigma, seed=self.seed_generator) for s in self._noise_shape(x)]

    def perturbed_outputs(self, x, noises, training=True):
        """``model(x)`` with ``noises[i]`` added to the embedding output of ``backbones[i]``."""
        with _add_to_output(self.embedding_layers, noises):
            return self.model(x, training=training)

    def _normalize(self, s):
        if self.noise.norm == "inf":
            size = ops.max(ops.abs(s), axis=-1, keepdims=True)
        else:
            size = ops.sqrt(ops.sum(ops.square(s), axis=-1, keepdims=True))
        return s / (size + self.noise.epsilon)

    def _weights(self, sample_weight, key):
        w = _pick(sample_weight, key)
        return None if w is None else ops.reshape(ops.cast(w, "float32"), (-1,))

    def _total(self, divergence, reduce, adv, clean, kinds, sample_weight):
        """Sum over the outputs of ``reduce`` (batch sum or mean) of the sample-weighted ``divergence``."""
        total = 0.0
        for key, kind in kinds:
            if kind is None:
                continue
            d = divergence(kind, adv[key], clean[key])
            w = self._weights(sample_weight, key)
            total = total + reduce(d if w is None else d * w)
        return total

    def perturbation(self, x, y_pred, sample_weight=None, training=True):
        """The final noise per backbone (stopped): ``steps`` ascent steps from the initial noise, normalised per token.

        Each step adds ``eta`` times the gradient of the batch sum of :func:`inner_divergence` (non-finite entries 0),
        then divides by the per-token norm plus ``epsilon``. ``y_pred`` is held fixed; ``sample_weight`` per output for
        a dict of outputs.
        """
        kinds = self._kinds(y_pred)
        clean = dict(_flat(y_pred))
        noises = self.initial_noise(x)

        def inner(noises):
            adv = dict(_flat(self.perturbed_outputs(x, noises, training=training)))
            return self._total(inner_divergence, ops.sum, adv, clean, kinds, sample_weight)  # a batch sum, as mt-dnn

        for _ in range(self.noise.steps):
            grads = noise_grad(inner, noises)
            noises = [
                ops.stop_gradient(self._normalize(n + self.noise.eta * ops.where(ops.isfinite(g), g, 0.0)))
                for n, g in zip(noises, grads)
            ]
        return noises

    def smoothness_loss(self, x, y_pred, sample_weight=None, training=True):
        """R_s of a batch: sample-weighted batch mean of the clean-vs-perturbed divergence, summed over outputs."""
        kinds = self._kinds(y_pred)
        noises = self.perturbation(x, y_pred, sample_weight, training=training)
        adv = dict(_flat(self.perturbed_outputs(x, noises, training=training)))
        return self._total(smoothness_divergence, ops.mean, adv, dict(_flat(y_pred)), kinds, sample_weight)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        loss = super().compute_loss(x, y, y_pred, sample_weight, training=training)
        if not training:
            return loss
        r_s = self.smoothness_loss(x, y_pred, sample_weight)
        self.smart_loss_tracker.update_state(r_s)
        return loss + ops.cast(self.lambda_s * r_s, loss.dtype)
