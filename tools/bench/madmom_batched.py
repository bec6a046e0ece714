# SPDX-License-Identifier: GPL-3.0-or-later
"""madmom's beat RNN ensemble, run with the same weights and the same arithmetic, but batched.

madmom's `RNNBeatProcessor()` averages 8 bidirectional LSTM networks (3 layers of 25 units each way).
Its LSTM layers step through the frames one at a time for each network and direction, with a dozen
small numpy calls per gate, so on this 2-core machine the networks take ~80 % of its time (about 1×
real time per core under load). Here the 16 sequences (8 networks × 2 directions) of a layer run as
one batch: the input projections of all frames are computed at once, and each frame step is one
batched matrix product for the 4 gates' recurrent weights plus the gate arithmetic, so the Python
overhead is paid once per frame instead of 16 × 4 times. The formulas are madmom's
(madmom/ml/nn/layers.py: LSTMLayer, Gate, Cell, BidirectionalLayer, FeedForwardLayer; activations
from madmom/ml/nn/activations.py), in madmom's float32. `check()` compares it with madmom's own
networks; tools/bench/accuracy uses it only when that check passes (see peers-setup.sh).
"""
import numpy as np


def _same_function(a, b):
    return a is b or getattr(a, "__name__", None) == getattr(b, "__name__", object())


class BatchedEnsemble:
    """The averaged output of a madmom NeuralNetworkEnsemble of BLSTM networks, batched."""

    def __init__(self, rnn_beat_processor):
        from madmom.ml.nn import activations, layers
        self.sigmoid = activations.sigmoid
        self.tanh = activations.tanh
        self.pre_processor, ensemble = rnn_beat_processor.processors
        networks = ensemble.processors[0].processors
        self.layers = []   # per BLSTM layer: dict of stacked weights, sequences ordered net0 fwd … netN fwd, net0 bwd …
        depth = len(networks[0].layers)
        for network in networks:
            if len(network.layers) != depth:
                raise ValueError("networks of different depths")
        for index in range(depth - 1):
            cells = []
            for direction in ("fwd_layer", "bwd_layer"):
                for network in networks:
                    layer = network.layers[index]
                    if not isinstance(layer, layers.BidirectionalLayer):
                        raise ValueError("not a bidirectional layer")
                    lstm = getattr(layer, direction)
                    if type(lstm) is not layers.LSTMLayer or not _same_function(lstm.activation_fn, activations.tanh):
                        raise ValueError("not a tanh LSTM layer")
                    for gate in (lstm.input_gate, lstm.forget_gate, lstm.output_gate):
                        if not _same_function(gate.activation_fn, activations.sigmoid) or gate.peephole_weights is None:
                            raise ValueError("unexpected gate")
                    if not _same_function(lstm.cell.activation_fn, activations.tanh):
                        raise ValueError("unexpected cell")
                    if np.any(lstm.init) or np.any(lstm.cell_init):
                        raise ValueError("non-zero initial state")
                    cells.append(lstm)
            gates = ("input_gate", "forget_gate", "cell", "output_gate")
            stack = lambda name, gate: np.stack([getattr(getattr(c, gate), name) for c in cells])
            self.layers.append({
                # (S, inputs, 4H) input weights, (S, 4H) biases, (S, H, 4H) recurrent weights, in gate order i f c o
                "W": np.concatenate([stack("weights", g) for g in gates], axis=2),
                "b": np.concatenate([stack("bias", g) for g in gates], axis=1),
                "R": np.concatenate([stack("recurrent_weights", g) for g in gates], axis=2),
                "P": [stack("peephole_weights", g) for g in ("input_gate", "forget_gate", "output_gate")],
                "H": cells[0].cell.bias.size,
            })
        self.output = []
        for network in networks:
            layer = network.layers[-1]
            if type(layer) is not layers.FeedForwardLayer or not _same_function(layer.activation_fn, activations.sigmoid):
                raise ValueError("unexpected output layer")
            self.output.append((layer.weights, layer.bias))
        self.networks = len(networks)

    def _blstm(self, inputs, layer):
        """inputs: (N, T, F) per network → (N, T, 2H)."""
        n, t_len = inputs.shape[0], inputs.shape[1]
        h = layer["H"]
        sequences = np.concatenate([inputs, inputs[:, ::-1]], axis=0)                 # (2N, T, F)
        # madmom: out = dot(data, weights) + bias, per gate (the recurrent part is added per frame)
        projected = np.matmul(sequences, layer["W"]) + layer["b"][:, None, :]        # (S, T, 4H)
        projected = np.ascontiguousarray(projected.transpose(1, 0, 2))                # (T, S, 4H)
        recurrent = layer["R"]
        p_i, p_f, p_o = layer["P"]
        s_count = sequences.shape[0]
        prev = np.zeros((s_count, h), dtype=projected.dtype)
        state = np.zeros((s_count, h), dtype=projected.dtype)
        out = np.empty((t_len, s_count, h), dtype=projected.dtype)
        sigmoid, tanh = self.sigmoid, self.tanh
        for t in range(t_len):
            x = projected[t]
            rec = np.matmul(prev[:, None, :], recurrent)[:, 0, :]                     # (S, 4H)
            # gate: out = x·W + b; out += state * peephole; out += prev·R; activation
            ig = sigmoid((x[:, 0:h] + state * p_i) + rec[:, 0:h])
            fg = sigmoid((x[:, h:2 * h] + state * p_f) + rec[:, h:2 * h])
            cell = tanh(x[:, 2 * h:3 * h] + rec[:, 2 * h:3 * h])
            state = cell * ig + state * fg
            og = sigmoid((x[:, 3 * h:] + state * p_o) + rec[:, 3 * h:])
            prev = tanh(state) * og
            out[t] = prev
        out = out.transpose(1, 0, 2)                                                  # (S, T, H)
        return np.concatenate([out[:n], out[n:, ::-1]], axis=2)

    def activations(self, features):
        """The ensemble's averaged beat activation for madmom's pre-processed features (T, F)."""
        data = np.broadcast_to(features, (self.networks,) + features.shape)
        for layer in self.layers:
            data = self._blstm(np.asarray(data), layer)
        outputs = [self.sigmoid(np.dot(data[i], w) + b).squeeze() for i, (w, b) in enumerate(self.output)]
        return np.mean(outputs, axis=0)   # madmom's average_predictions: np.mean(predictions, axis=0)

    def __call__(self, audio_path):
        return self.activations(self.pre_processor(audio_path))


def check(rnn_beat_processor, audio_path):
    """(max |batched − madmom| over the activation, number of frames) on one file."""
    batched = BatchedEnsemble(rnn_beat_processor)
    features = batched.pre_processor(audio_path)
    ours = batched.activations(features)
    theirs = rnn_beat_processor.processors[1](features)
    return float(np.max(np.abs(ours - theirs))), len(features)
