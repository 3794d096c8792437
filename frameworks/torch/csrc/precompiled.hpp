// SPDX-License-Identifier: Apache-2.0
// The precompiled header of torch_devplug._C: the ATen core every kernel file includes.
#pragma once

#include <ATen/ATen.h>
#include <torch/library.h>
