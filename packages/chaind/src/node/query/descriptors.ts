// The protobuf descriptors the REST gateway renders JSON from and gRPC reflection serves: ours
// (chain.upgrade.v1beta1, generated into @chaind/sdk's gen/) and the hand-written Cosmos SDK subset
// (proto/, built into cosmos-descriptors.binpb by scripts/cosmos-descriptors.mjs).
import { readFileSync } from 'node:fs';
import { createFileRegistry, fromBinary, toBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';

export interface Descriptors {
  /** Every file once, dependencies before dependants (as buf writes them). */
  readonly files: readonly FileDescriptorProto[];
  /** Every message, enum and service of `files`, Any types included. */
  readonly registry: FileRegistry;
  /** Each file's FileDescriptorProto bytes, for reflection. */
  fileBytes(): Buffer[];
}

/** The sdk exports only .ts paths under gen/; the descriptor set sits beside the generated code. */
export const SDK_DESCRIPTOR_SET = new URL('../../../descriptor-set.binpb', import.meta.resolve('@chaind/sdk/gen/chain/upgrade/v1beta1/query'));
export const COSMOS_DESCRIPTOR_SET = new URL('./cosmos-descriptors.binpb', import.meta.url);

let cached: Descriptors | undefined;

/** Loads (once) and merges the descriptor sets; a file in both (the google WKTs) is taken once. */
export function loadDescriptors(): Descriptors {
  if (cached !== undefined) return cached;
  const byName = new Map<string, FileDescriptorProto>();
  for (const url of [SDK_DESCRIPTOR_SET, COSMOS_DESCRIPTOR_SET]) {
    for (const f of fromBinary(FileDescriptorSetSchema, readFileSync(url)).file) {
      if (!byName.has(f.name)) byName.set(f.name, f);
    }
  }
  const files = [...byName.values()];
  const registry = createFileRegistry({ $typeName: 'google.protobuf.FileDescriptorSet', file: files });
  cached = { files, registry, fileBytes: () => files.map((f) => Buffer.from(toBinary(FileDescriptorProtoSchema, f))) };
  return cached;
}
