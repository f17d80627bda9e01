"""Wrong fix for keras-core issue 566, tried in the thread: a Dense
layer on the patches in place of the Embedding of the positions. It
trains without the error, but what it adds depends on each patch's
content, not on its position: two equal patches get equal terms."""

import os

os.environ["KERAS_BACKEND"] = "torch"

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers, ops  # noqa: E402

keras.utils.set_random_seed(0)

image_size = 8
num_classes = 3
projection_dim = 8


class CCTTokenizer(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.conv_model = keras.Sequential()
        self.conv_model.add(
            layers.Conv2D(
                projection_dim,
                3,
                1,
                padding="valid",
                use_bias=False,
                activation="relu",
            )
        )
        self.conv_model.add(layers.ZeroPadding2D(1))
        self.conv_model.add(layers.MaxPool2D(3, 2, "same"))

    def call(self, images):
        outputs = self.conv_model(images)
        return ops.reshape(
            outputs,
            (
                -1,
                ops.shape(outputs)[1] * ops.shape(outputs)[2],
                ops.shape(outputs)[-1],
            ),
        )

    def positional_embedding(self, image_size):
        dummy_inputs = ops.ones((1, image_size, image_size, 3))
        dummy_outputs = self.call(dummy_inputs)
        sequence_length = ops.shape(dummy_outputs)[1]
        projection_dim = ops.shape(dummy_outputs)[-1]
        embed_layer = layers.Embedding(
            input_dim=sequence_length, output_dim=projection_dim
        )
        return embed_layer, sequence_length


class SequencePooling(layers.Layer):
    def __init__(self):
        super().__init__()
        self.attention = layers.Dense(1)

    def call(self, x):
        weights = ops.nn.softmax(self.attention(x), axis=1)
        pooled = ops.matmul(ops.transpose(weights, [0, 2, 1]), x)
        return ops.squeeze(pooled, -2)


def create_cct_model():
    inputs = layers.Input((image_size, image_size, 3))
    augmented = layers.Rescaling(scale=1.0 / 255)(inputs)
    cct_tokenizer = CCTTokenizer()
    encoded_patches = cct_tokenizer(augmented)
    # Apply positional embedding.
    projection_dim = ops.shape(encoded_patches)[-1]
    position_embeddings = layers.Dense(projection_dim)(encoded_patches)
    encoded_patches += position_embeddings
    # One Transformer block.
    x1 = layers.LayerNormalization(epsilon=1e-5)(encoded_patches)
    attention_output = layers.MultiHeadAttention(
        num_heads=2, key_dim=projection_dim
    )(x1, x1)
    x2 = layers.Add()([attention_output, encoded_patches])
    x3 = layers.LayerNormalization(epsilon=1e-5)(x2)
    x3 = layers.Dense(projection_dim, activation=ops.gelu)(x3)
    encoded_patches = layers.Add()([x3, x2])
    representation = layers.LayerNormalization(epsilon=1e-5)(
        encoded_patches
    )
    weighted_representation = SequencePooling()(representation)
    logits = layers.Dense(num_classes)(weighted_representation)
    model = keras.Model(inputs=inputs, outputs=logits)
    return model, keras.Model(inputs, position_embeddings)


class PrintLoss(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print(f"batch {batch}: loss {logs['loss']:.3f}")


rng = np.random.default_rng(0)
x_train = rng.uniform(0, 255, (8, image_size, image_size, 3))
y_train = keras.utils.to_categorical(rng.integers(0, 3, 8), 3)

model, added_term = create_cct_model()
model.compile(
    optimizer=keras.optimizers.AdamW(
        learning_rate=0.001, weight_decay=0.0001
    ),
    loss=keras.losses.CategoricalCrossentropy(
        from_logits=True, label_smoothing=0.1
    ),
)
model.fit(
    x_train.astype("float32"),
    y_train,
    batch_size=4,
    epochs=1,
    verbose=0,
    shuffle=False,
    callbacks=[PrintLoss()],
)

# A uniform image: every patch of it is the same.
uniform = np.full((1, image_size, image_size, 3), 128.0, "float32")
term = ops.convert_to_numpy(added_term(uniform))[0]
print(
    "added term differs between positions:",
    bool(np.abs(term - term[0]).max() > 1e-6),
)
