// SPDX-License-Identifier: Apache-2.0
// A library the missing-dependency fixture plugin links to; the tests keep it out of the
// loader's reach so that loading that plugin fails with the loader's own message.
extern "C" __attribute__((visibility("default"))) int fixture_dependency_value(void) { return 1; }
