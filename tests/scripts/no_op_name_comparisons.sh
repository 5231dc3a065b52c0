#!/usr/bin/env bash
# The harness never branches on an op's name: behaviour lives in the op descriptors (pe/op_schema,
# gate/gate_ops). Fails naming each comparison `op == "..."` (or `"rotate" == op`) in src/ and properties/.
# usage: no_op_name_comparisons.sh SOURCE_DIR
set -u
ops='encode|rotate|inv_freq|matrix|scale|bias|bucket|attend|rotate_qk|rotate_grad|apply_tables'
found=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' "op *== *\"|\"($ops)\" *== *op" "$1/src" "$1/properties")
if [ -n "$found" ]; then
  echo "op names compared outside the op descriptors:"
  echo "$found"
  exit 1
fi
echo "no op name compared in src/ or properties/"
