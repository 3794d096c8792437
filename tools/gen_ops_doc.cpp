// SPDX-License-Identifier: Apache-2.0
// Prints docs/ops.md, the op reference, from sdk/include/devplug/ops.def.
//
// The op rows come only from the X-macro; the prose about categories (shape rules),
// attribute structs, result rules and dtype sets is written here once, keyed by the
// tokens ops.def uses. A token in ops.def without prose here stops the generator, so the
// document cannot silently fall behind the table.
//
// Usage: gen_ops_doc [OUTPUT]   (standard output when OUTPUT is omitted)
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "devplug/ops.h"
#include "devplug/plugin_api.h"

namespace {

struct OpRow {
  int id;
  std::string name;
  std::string category;
  int n_in;
  int n_out;
  std::string attrs;
  std::string result;
  devplug_dtype_mask_t dtypes;
  std::string summary;
  std::string signature;  // composites only
};

const std::vector<OpRow>& op_rows() {
  static const std::vector<OpRow> rows = {
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary) \
  {id, #name, #category, n_in, n_out, #attrs, #result, dtypes, summary, ""},
#define DEVPLUG_COMPOSITE(id, name, n_in, n_out, optional_in, optional_out, attrs, result, dtypes, \
                          signature, summary)                                                      \
  {id, #name, "composite", n_in, n_out, #attrs, #result, dtypes, summary, signature},
#include "devplug/ops.def"
  };
  return rows;
}

// Categories in document order, with a title and the shape rule the dispatcher enforces.
struct CategoryDoc {
  const char* token;
  const char* title;
  const char* shape_rule;
};
const CategoryDoc kCategories[] = {
    {"unary", "Unary", "The input and the output have one shape."},
    {"binary", "Binary",
     "Both inputs and the output have one shape and (except where `result` says otherwise) one dtype."},
    {"compare", "Comparison",
     "Both inputs have one shape and dtype; the output has that shape and dtype bool."},
    {"ternary", "Ternary",
     "`cond` (bool), `a`, `b` and the output have one shape; `a`, `b` and the output share a dtype."},
    {"data", "Data",
     "convert_element_type and copy_strided: the input and the output have one shape. fill and iota have no "
     "input; the output may have any shape."},
    {"reduce", "Reductions",
     "The output has the input's rank; dims whose bit is set in `dims_mask` have size 1 in the output, the "
     "others match the input. A `dims_mask` of 0 reduces nothing."},
    {"scan", "Scans", "The output has the input's shape; `dim` < rank (0 for a 0-d input)."},
    {"index", "Indexing",
     "index_select: `index` is 1-D and the output is the input's shape with `dim` replaced by len(index). "
     "gather: `index` has the input's rank, the output has `index`'s shape, index.shape[d] <= input.shape[d] "
     "for d != dim. scatter and scatter_add: the output has the input's shape, `index` has the input's rank, "
     "index.shape[d] <= src.shape[d] for every d and <= input.shape[d] for d != dim. Index tensors are int64 "
     "with values in [0, size of dim). A value outside that range is INVALID_ARGUMENT on every plugin, from "
     "the call itself or, where a kernel finds it on the device, from the stream's next `stream_synchronize` "
     "(or `stream_destroy`), reported once; no plugin reads or writes outside a buffer for it, and the "
     "call's output is unspecified (docs/reliability.md)."},
    {"shape", "Shape",
     "cat: all inputs have one rank and equal dims except `dim`; out.shape[dim] is the sum. flip: one shape. "
     "constant_pad: out.shape[d] = in.shape[d] + before[d] + after[d] >= 0."},
    {"linalg", "Linear algebra",
     "matmul: a [B.., M, K], b [B.., K, N], out [B.., M, N], one rank >= 2, equal batch dims (the dispatcher "
     "broadcasts batch dims as stride-0 views)."},
    {"random", "Random",
     "No inputs; the output may have any shape and layout. Element k is the k-th element in row-major "
     "logical order, whatever the strides (docs/random.md)."},
    {"composite", "Composite ops (op set 2)",
     "Per op (`devplug/sdk/composite_shapes.hpp`, one rule per op, checked by the dispatcher before any "
     "kernel). The signature names the tensors in call order; `?` marks an optional one, passed as NULL when "
     "absent. A tensor has the dispatch dtype (input 0's) unless annotated `:int64` (indices), `:bool`, "
     "`:mask` (bool, or the dispatch dtype for an additive mask) or `:acc` (float32 for a float16 or "
     "bfloat16 dispatch dtype, else the dispatch dtype). Per-channel and per-class vectors are `[C]`; masks "
     "are `[B.., L, S]`; a loss target has the input's shape without the class dim (dim 1, or 0 for a 1-D "
     "input); reductions `mean` (1) and `sum` (2) give a 0-d output, `none` (0) the target's shape. Every "
     "composite runs on every plugin: natively where the plugin declares a kernel, else through its "
     "decomposition into prims on the same device (docs/composites.md gives each formula); float16 and "
     "bfloat16 are computed in float32 and rounded once."},
};

struct TokenDoc {
  const char* token;
  const char* text;
};

// Attribute structs (ops.h), keyed by the ops.def `attrs` token.
const TokenDoc kAttrs[] = {
    {"none",
     "No attributes: pass `attrs = NULL`. (`devplug_none_attrs_t` exists so that every token names a type.)"},
    {"reduce",
     "`devplug_reduce_attrs_t {struct_size, uint32_t dims_mask, double correction}`: bit d of `dims_mask` "
     "reduces dim d; `correction` is read by var only (1 gives the unbiased estimate)."},
    {"dim",
     "`devplug_dim_attrs_t {struct_size, int32_t dim}`: the dim a scan, index op or cat works along, in [0, "
     "rank)."},
    {"flip", "`devplug_flip_attrs_t {struct_size, uint32_t dims_mask}`: bit d reverses dim d."},
    {"pad",
     "`devplug_pad_attrs_t {struct_size, int64_t before[8], int64_t after[8], devplug_scalar_t value}`: "
     "elements added before and after each dim (negative crops); entries past the rank are ignored."},
    {"fill",
     "`devplug_fill_attrs_t {struct_size, devplug_scalar_t value}`: float outputs read `value.f`, integer "
     "and bool outputs read `value.i`."},
    {"iota",
     "`devplug_iota_attrs_t {struct_size, devplug_scalar_t start, devplug_scalar_t step}`: element k = start "
     "+ k * step, `.f` for float outputs, `.i` for integer outputs."},
    {"matmul",
     "`devplug_matmul_attrs_t {struct_size, uint32_t flags}`: `DEVPLUG_MATMUL_ALLOW_TF32` lets a float32 "
     "matmul use reduced-precision tensor cores (off by default)."},
    {"philox",
     "`devplug_philox_attrs_t {struct_size, uint64_t seed, uint64_t offset}`: Philox4x32-10 key = seed, "
     "counter block = offset + word index / 4 (docs/random.md)."},
    {"gelu",
     "`devplug_gelu_attrs_t {struct_size, int32_t approximate}`: `DEVPLUG_GELU_NONE` (0, the erf form) or "
     "`DEVPLUG_GELU_TANH` (1, PyTorch's approximate='tanh')."},
    {"softplus",
     "`devplug_softplus_attrs_t {struct_size, double beta, double threshold}`: beta finite and non-zero; the "
     "linear branch where beta x > threshold."},
    {"clamp",
     "`devplug_clamp_attrs_t {struct_size, uint32_t flags, devplug_scalar_t min, devplug_scalar_t max}`: "
     "`DEVPLUG_CLAMP_MIN` and `DEVPLUG_CLAMP_MAX` say which bounds apply; `.f` for floating dtypes, `.i` for "
     "integers, taken in the dtype as fill takes them."},
    {"leaky_relu", "`devplug_leaky_relu_attrs_t {struct_size, double negative_slope}`."},
    {"norm",
     "`devplug_norm_attrs_t {struct_size, int32_t normalized_rank, double eps}`: the last normalized_rank "
     "dims (in [0, rank]) are normalized; eps finite >= 0."},
    {"batch_norm",
     "`devplug_batch_norm_attrs_t {struct_size, double eps, double momentum}`: running = (1 - momentum) "
     "running + momentum statistic."},
    {"sdpa",
     "`devplug_sdpa_attrs_t {struct_size, uint32_t flags, double scale}`: `DEVPLUG_SDPA_CAUSAL` (key j takes "
     "part for query i when j <= i; no mask then), `DEVPLUG_SDPA_SCALE` (use `scale`, else 1 / sqrt(E))."},
    {"conv2d",
     "`devplug_conv2d_attrs_t {struct_size, int64_t stride[2], int64_t padding[2], int64_t dilation[2], "
     "int64_t groups}`: per (height, width); stride and dilation >= 1, zero padding >= 0, groups >= 1 "
     "dividing C and O."},
    {"pool2d",
     "`devplug_pool2d_attrs_t {struct_size, int64_t kernel[2], int64_t stride[2], int64_t padding[2], "
     "int64_t dilation[2], uint32_t flags, int64_t divisor_override}`: padding at most half the dilated "
     "window; flags `DEVPLUG_POOL_CEIL_MODE`, `DEVPLUG_POOL_COUNT_INCLUDE_PAD`; avg_pool2d: dilation 1, "
     "divisor_override > 0 replaces the divisor (0: none)."},
    {"embedding",
     "`devplug_embedding_attrs_t {struct_size, int64_t padding_idx, uint32_t flags}`: padding_idx < 0 for "
     "none; `DEVPLUG_EMBEDDING_SCALE_GRAD_BY_FREQ`."},
    {"loss",
     "`devplug_loss_attrs_t {struct_size, int32_t reduction, int64_t ignore_index, double label_smoothing}`: "
     "reduction `DEVPLUG_REDUCTION_NONE` (0), `_MEAN` (1), `_SUM` (2); ignore_index for nll_loss and "
     "cross_entropy; label_smoothing in [0, 1] for cross_entropy (0 for nll_loss)."},
    {"dropout",
     "`devplug_dropout_attrs_t {struct_size, double p, uint64_t seed, uint64_t offset}`: p in [0, 1]; the "
     "mask comes from philox_uniform (float32) with this seed and offset, so every plugin draws the same "
     "mask."},
};

// Result rules (ops.def `result`), keyed by token.
const TokenDoc kResults[] = {
    {"same", "dispatch on input 0; the outputs have that dtype"},
    {"bool", "dispatch on input 0; the output is bool"},
    {"int64", "dispatch on input 0; the output is int64"},
    {"any", "dispatch on input 0; the output may have any dtype (casts)"},
    {"select", "input 0 is bool; dispatch on input 1; inputs 1, 2 and the output share its dtype"},
    {"made", "no inputs; dispatch on the output's dtype"},
};

// Named dtype sets (types.h), shown by name in the tables.
struct DtypeSet {
  const char* name;
  const char* macro;
  devplug_dtype_mask_t mask;
};
const DtypeSet kDtypeSets[] = {
    {"all", "DEVPLUG_DTYPES_ALL", DEVPLUG_DTYPES_ALL},
    {"numeric", "DEVPLUG_DTYPES_NUMERIC", DEVPLUG_DTYPES_NUMERIC},
    {"integral", "DEVPLUG_DTYPES_INTEGRAL", DEVPLUG_DTYPES_INTEGRAL},
    {"int", "DEVPLUG_DTYPES_INT", DEVPLUG_DTYPES_INT},
    {"float", "DEVPLUG_DTYPES_FLOAT", DEVPLUG_DTYPES_FLOAT},
    {"index bits", "DEVPLUG_DTYPES_INDEX_BITS", DEVPLUG_DTYPES_INDEX_BITS},
};

[[noreturn]] void die(const std::string& message) {
  std::cerr << "gen_ops_doc: " << message << "\n";
  std::exit(1);
}

const char* token_text(const TokenDoc* docs, size_t n, const std::string& token, const char* column) {
  for (size_t i = 0; i < n; ++i)
    if (token == docs[i].token) return docs[i].text;
  die(std::string("ops.def uses ") + column + " token '" + token +
      "' that tools/gen_ops_doc.cpp does not describe; add it there");
}

std::string dtype_list(devplug_dtype_mask_t mask) {
  std::string text;
  for (int d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
    if ((mask & DEVPLUG_DTYPE_BIT(d)) == 0) continue;
    if (!text.empty()) text += ", ";
    text += devplug_dtype_name(d);
  }
  return text.empty() ? "(none)" : text;
}

std::string dtype_cell(devplug_dtype_mask_t mask) {
  for (const DtypeSet& set : kDtypeSets)
    if (set.mask == mask) return set.name;
  return dtype_list(mask);
}

// Markdown table cells may not hold a bare '|'.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

void write_doc(std::ostream& out) {
  const auto& rows = op_rows();
  out << "<!-- GENERATED FILE: do not edit. Source: sdk/include/devplug/ops.def, generator: "
         "tools/gen_ops_doc.cpp. -->\n";
  out << "# devplug op reference (op set " << DEVPLUG_OPSET_VERSION << ")\n\n";
  out << "> This file is generated from `sdk/include/devplug/ops.def` by `tools/gen_ops_doc` "
         "and must not be edited by hand. To change it, edit ops.def (append only) or the "
         "generator, then run `ninja -C <build> devplug_update_ops_doc` and commit the result; "
         "the `abi.ops_doc_up_to_date` test fails while the two differ.\n\n";
  size_t composites = 0;
  for (const OpRow& row : rows) composites += row.category == "composite";
  out << "The op set has " << rows.size() << " ops: " << rows.size() - composites << " prims and "
      << composites
      << " composite ops. Ids are ABI: stable forever, never renumbered, never given new semantics (a "
         "changed op is a new op). Prims are strict: inputs of an elementwise prim have one "
         "shape and dtype; broadcasting and type promotion happen in the dispatcher. Semantics "
         "follow the summary column, then the PyTorch operator of the same name on same-dtype "
         "inputs; \"unspecified\" marks results the conformance suite does not check (it "
         "checks only that they do not crash).\n\n";

  out << "## Columns\n\n";
  out << "| column | meaning |\n| --- | --- |\n";
  out << "| id | `DEVPLUG_OP_<name>`, the op's number in the ABI |\n";
  out << "| name | the one spelling of the op everywhere (`DEVPLUG_OP_exp`, `\"exp\"`, test "
         "`exp_float32_...`) |\n";
  out << "| arity | inputs -> outputs; `1+` means one or more |\n";
  out << "| attrs | the attribute struct `devplug_<attrs>_attrs_t` (see below) |\n";
  out << "| result | how the output dtype and the dispatch dtype follow from the tensors (see "
         "below) |\n";
  out << "| dtypes | the dispatch dtypes the op allows (named sets below) |\n\n";

  out << "## Result rules\n\n| result | rule |\n| --- | --- |\n";
  for (const TokenDoc& r : kResults) out << "| `" << r.token << "` | " << r.text << " |\n";
  out << "\n## Dtype sets\n\n| set | macro | dtypes |\n| --- | --- | --- |\n";
  for (const DtypeSet& s : kDtypeSets)
    out << "| " << s.name << " | `" << s.macro << "` | " << dtype_list(s.mask) << " |\n";
  out << "\nIndex tensors (index_select, gather, scatter, scatter_add) are int64.\n";

  out << "\n## Attribute structs\n\nEvery attribute struct starts with `size_t struct_size` "
         "(fields are only ever appended). Fill and pad scalars: float outputs read `.f`, "
         "integer and bool outputs read `.i`; callers set both.\n\n";
  out << "| attrs | struct and fields |\n| --- | --- |\n";
  for (const TokenDoc& a : kAttrs) out << "| `" << a.token << "` | " << a.text << " |\n";

  // Every token used in ops.def must be described above.
  std::set<std::string> categories_done;
  for (const OpRow& row : rows) {
    token_text(kAttrs, std::size(kAttrs), row.attrs, "attrs");
    token_text(kResults, std::size(kResults), row.result, "result");
    bool known = false;
    for (const CategoryDoc& c : kCategories) known = known || row.category == c.token;
    if (!known)
      die("ops.def uses category '" + row.category + "' that tools/gen_ops_doc.cpp does not describe");
  }

  out << "\n## Ops by category\n";
  for (const CategoryDoc& category : kCategories) {
    out << "\n### " << category.title << " (`" << category.token << "`)\n\n";
    out << "Shape rule: " << category.shape_rule << "\n\n";
    const bool composite = std::string(category.token) == "composite";
    if (composite) {
      out << "| id | name | signature | attrs | dtypes | semantics |\n";
      out << "| ---: | --- | --- | --- | --- | --- |\n";
    } else {
      out << "| id | name | arity | attrs | result | dtypes | semantics |\n";
      out << "| ---: | --- | --- | --- | --- | --- | --- |\n";
    }
    for (const OpRow& row : rows) {
      if (row.category != category.token) continue;
      if (composite) {
        out << "| " << row.id << " | `" << row.name << "` | `" << cell(row.signature) << "` | `" << row.attrs
            << "` | " << dtype_cell(row.dtypes) << " | " << cell(row.summary) << " |\n";
        continue;
      }
      const std::string arity =
          (row.n_in < 0 ? std::string("1+") : std::to_string(row.n_in)) + " -> " + std::to_string(row.n_out);
      out << "| " << row.id << " | `" << row.name << "` | " << arity << " | `" << row.attrs << "` | `"
          << row.result << "` | " << dtype_cell(row.dtypes) << " | " << cell(row.summary) << " |\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2) die("usage: gen_ops_doc [OUTPUT]");
  std::ostringstream text;
  write_doc(text);
  if (argc == 1) {
    std::cout << text.str();
    return 0;
  }
  std::ofstream file(argv[1], std::ios::binary);
  file << text.str();
  if (!file) die(std::string("cannot write ") + argv[1]);
  return 0;
}
