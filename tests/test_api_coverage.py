"""Every public name of the TensorFlow 2.21 / Keras 3.15 namespaces tapers mirrors exists in tapers, or is
listed in KNOWN_MISSING below (tests/data/make_api_coverage_reference.py records the names).

A porting user's AttributeError is a defect: this list is the written-down part of it. Implementing a name
makes the test fail until the name leaves the list; a name missing and not listed fails too.

Why the listed names are missing, by group: no string dtype (``string``, ``strings``, ``as_string``,
``fingerprint``, the JPEG/PNG codecs, ``StringLookup``, ``TextVectorization``, ``Hashing``); no sparse or
ragged tensors (``SparseTensor``, ``RaggedTensor``, ``sparse``, ``ragged``, ``sparse_batch``); graph-mode and
runtime machinery tapers has no counterpart for (``Graph``, ``Operation``, ``raw_ops``, ``compat``,
``saved_model``, ``lite``, ``tpu``, ``xla``, ``mlir``, ``dtensor``, ``load_op_library``, TF's protos in
``tf.train``); quantized dtypes and Keras quantizers; file formats (``TFRecordDataset``, ``io``,
``summary``/``TensorBoard``); whole-model saving (``clone_model``, ``model_from_json``, ``save_model`` in
``keras.models``, ``to_json``); Keras' other backends (``JaxLayer``, ``TorchModuleWrapper``); and the rest
simply not built yet (``signal``, ``linalg.LinearOperator*``, candidate samplers, CTC decoders, ...).
"""

import json
import pathlib

import pytest

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "api_coverage_reference.json").read_text())

KNOWN_MISSING = {
    "tf": (
        "CriticalSection DeviceSpec Graph IndexedSlicesSpec NoneTensorSpec Operation OptionalSpec "
        "RaggedTensor RaggedTensorSpec RegisterGradient SparseTensor SparseTensorSpec TensorArraySpec "
        "TypeSpec approx_top_k as_string audio autograph bitcast bitwise check_pinned compat conv "
        "conv2d_backprop_filter_v2 conv2d_backprop_input_v2 dtensor edit_distance eig eigvals "
        "extract_volume_patches feature_column fftnd fingerprint gradients graph_util hessians ifftnd "
        "import_graph_def io irfftnd lite load_library load_op_library lookup make_ndarray make_tensor_proto "
        "matrix_square_root mlir no_gradient nondifferentiable_batch_function profiler qint16 qint32 qint8 "
        "quantization queue quint16 quint8 ragged ragged_fill_empty_rows ragged_fill_empty_rows_grad "
        "random_index_shuffle raw_ops recompute_grad register_tensor_conversion_function resource rfftnd "
        "saved_model security sets signal sparse string strings summary sysconfig test timestamp tools tpu "
        "types variable_creator_scope variant xla "
    ),
    "tf.config": (
        "experimental experimental_connect_to_cluster experimental_connect_to_host "
    ),
    "tf.data": (
        "FixedLengthRecordDataset IteratorSpec TFRecordDataset TextLineDataset "
    ),
    "tf.data.experimental": (
        "CsvDataset DatasetInitializer Optional Reducer SHARD_HINT ServiceOptions SqlDataset TFRecordWriter "
        "assert_cardinality at copy_to_device dense_to_ragged_batch dense_to_sparse_batch distributed_save "
        "enable_debug_mode enumerate_dataset from_list from_variant get_model_proto get_next_as_optional "
        "get_single_element get_structure group_by_reducer index_table_from_dataset "
        "make_batched_features_dataset make_csv_dataset make_saveable_from_iterator map_and_batch "
        "pad_to_cardinality parallel_interleave parse_example_dataset prefetch_to_device service "
        "shuffle_and_repeat snapshot table_from_dataset take_while to_variant unbatch "
    ),
    "tf.debugging": (
        "experimental "
    ),
    "tf.distribute": (
        "CrossDeviceOps HierarchicalCopyAllReduce InputOptions InputReplicationMode NcclAllReduce "
        "ParameterServerStrategy ReductionToOneDevice RunOptions Server TPUStrategy cluster_resolver "
        "coordinator experimental "
    ),
    "tf.dtypes": (
        "QUANTIZED_DTYPES cast complex experimental qint16 qint32 qint8 quint16 quint8 resource saturate_cast "
        "string variant "
    ),
    "tf.image": (
        "adjust_jpeg_quality decode_and_crop_jpeg decode_bmp decode_gif decode_image decode_jpeg decode_jxl "
        "decode_png decode_webp encode_jpeg encode_png extract_jpeg_shape generate_bounding_box_proposals "
        "is_jpeg random_jpeg_quality stateless_random_jpeg_quality "
    ),
    "tf.linalg": (
        "LinearOperator LinearOperatorAdjoint LinearOperatorBlockDiag LinearOperatorBlockLowerTriangular "
        "LinearOperatorCirculant LinearOperatorCirculant2D LinearOperatorCirculant3D "
        "LinearOperatorComposition LinearOperatorDiag LinearOperatorFullMatrix LinearOperatorHouseholder "
        "LinearOperatorIdentity LinearOperatorInversion LinearOperatorKronecker LinearOperatorLowRankUpdate "
        "LinearOperatorLowerTriangular LinearOperatorPermutation LinearOperatorScaledIdentity "
        "LinearOperatorToeplitz LinearOperatorTridiag LinearOperatorZeros banded_triangular_solve eig "
        "eigh_tridiagonal eigvals experimental logm lu lu_matrix_inverse lu_reconstruct lu_solve sqrtm "
    ),
    "tf.math": (
        "sobol_sample "
    ),
    "tf.nn": (
        "RNNCellDeviceWrapper RNNCellDropoutWrapper RNNCellResidualWrapper all_candidate_sampler "
        "collapse_repeated compute_accidental_hits ctc_beam_search_decoder ctc_greedy_decoder "
        "ctc_unique_labels depthwise_conv2d_backprop_filter depthwise_conv2d_backprop_input dilation2d "
        "embedding_lookup_sparse erosion2d experimental fixed_unigram_candidate_sampler fractional_avg_pool "
        "fractional_max_pool isotonic_regression learned_unigram_candidate_sampler max_pool_with_argmax "
        "nce_loss safe_embedding_lookup_sparse sampled_softmax_loss with_space_to_batch "
    ),
    "tf.random": (
        "all_candidate_sampler fixed_unigram_candidate_sampler learned_unigram_candidate_sampler "
        "log_uniform_candidate_sampler uniform_candidate_sampler "
    ),
    "tf.train": (
        "BytesList CheckpointOptions CheckpointView ClusterDef ClusterSpec Coordinator Example Feature "
        "FeatureList FeatureLists Features FloatList Int64List JobDef SequenceExample ServerDef TrackableView "
        "experimental load_checkpoint "
    ),
    "keras": (
        "Function Operation Quantizer RematScope StatelessScope SymbolicScope applications datasets "
        "distillation distribution export legacy quantizers remat src visualization wrappers "
    ),
    "keras.callbacks": (
        "OrbaxCheckpoint RemoteMonitor SwapEMAWeights TensorBoard "
    ),
    "keras.config": (
        "disable_flash_attention enable_flash_attention is_flash_attention_enabled is_nnx_enabled set_backend "
    ),
    "keras.dtype_policies": (
        "AWQDTypePolicy DTypePolicyMap GPTQDTypePolicy Int4DTypePolicy QuantizedDTypePolicy "
        "QuantizedFloat8DTypePolicy "
    ),
    "keras.initializers": (
        "STFT STFTInitializer stft "
    ),
    "keras.layers": (
        "AugMix ContrastLimitedAdaptiveHistogramEqualization FlaxLayer HashedCrossing Hashing JaxLayer "
        "MaxNumBoundingBoxes MelSpectrogram RandAugment RandomElasticTransform STFTSpectrogram StringLookup "
        "TFSMLayer TextVectorization TorchModuleWrapper "
    ),
    "keras.models": (
        "clone_model model_from_json save_model "
    ),
    "keras.ops": (
        "eig "
    ),
    "keras.optimizers": (
        "MultiOptimizer OptimizerMap legacy "
    ),
    "keras.preprocessing": (
        "image_dataset_from_directory text_dataset_from_directory "
    ),
    "keras.saving": (
        "KerasFileEditor "
    ),
    "keras.utils": (
        "Config FeatureSpace array_to_img audio_dataset_from_directory bounding_boxes get_file "
        "get_source_inputs image_dataset_from_directory legacy load_img save_img text_dataset_from_directory "
    ),
    "tf.data.Dataset": (
        "fingerprint list_files ragged_batch snapshot sparse_batch "
    ),
    "tf.Variable": (
        "SaveSliceInfo aggregation batch_scatter_update count_up_to eval from_proto graph initial_value "
        "initialized_value initializer load op synchronization to_proto "
    ),
    "keras.Model": (
        "add_metric compile_from_config compiled_loss compiled_metrics distribute_reduction_method "
        "distribute_strategy export get_compile_config get_quantization_layer_structure get_state_tree "
        "load_own_variables loss metrics_variables path quantization_mode quantize quantized_build "
        "quantized_call rematerialized_call save_own_variables set_state_tree stateless_call "
        "stateless_compute_loss supports_masking symbolic_call to_json "
    ),
}


def _resolve(root, path):
    obj = root
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _cases():
    for m, names in REF["tf"].items():
        yield ("tf" + ("." + m if m else "")), _resolve(tf, m), names
    for m, names in REF["keras"].items():
        yield ("keras" + ("." + m if m else "")), _resolve(tf.keras, m), names
    yield "tf.data.Dataset", tf.data.Dataset, REF["tf.data.Dataset"]
    yield "tf.Variable", tf.Variable, REF["tf.Variable"]
    yield "keras.Model", tf.keras.Model, REF["keras.Model"]


CASES = {name: (obj, names) for name, obj, names in _cases()}


@pytest.mark.parametrize("module", sorted(CASES))
def test_every_tensorflow_and_keras_name_exists_or_is_listed(module):
    obj, names = CASES[module]
    assert obj is not None, f"{module} does not exist in tapers"
    missing = sorted(n for n in names if not hasattr(obj, n))
    known = sorted(KNOWN_MISSING.get(module, "").split())
    new = sorted(set(missing) - set(known))
    done = sorted(set(known) - set(missing))
    assert not new, f"{module}: names TensorFlow/Keras have and tapers lacks, not listed in KNOWN_MISSING: {new}"
    assert not done, f"{module}: tapers has these now; remove them from KNOWN_MISSING: {done}"


def test_known_missing_names_only_recorded_modules():
    assert set(KNOWN_MISSING) <= set(CASES)
