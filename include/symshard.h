/* SPDX-License-Identifier: MIT */
/*
 * symshard: symbolic shapes and sharding for graph compilers.
 * Umbrella header; see symshard(3).
 */
#ifndef SYMSHARD_H
#define SYMSHARD_H

#include <symshard/version.h>
#include <symshard/common.h>
#include <symshard/ctx.h>
#include <symshard/symbol.h>
#include <symshard/expr.h>
#include <symshard/prove.h>
#include <symshard/shape.h>
#include <symshard/mesh.h>
#include <symshard/layout.h>
#include <symshard/redist.h>
#include <symshard/graph.h>
#include <symshard/onnx.h>
#include <symshard/shard.h>
#include <symshard/search.h>
#include <symshard/grad.h>
#include <symshard/plan.h>
#include <symshard/comm.h>
#include <symshard/exec.h>
#include <symshard/dataset.h>
#include <symshard/checkpoint.h>
#include <symshard/trainer.h>

#endif
