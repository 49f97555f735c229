import { create, createRegistry, type DescFile, type Registry, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import {
  ServerReflection,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from "../../gen/proto/grpc/reflection/v1/reflection_pb.js";

/**
 * grpc.reflection.v1 over the generated descriptors, so generic tools (buf curl, grpcurl,
 * Postman) can list and call the services without a copy of the .proto files. No npm package
 * serves reflection for connect-node, hence this small implementation of the protocol.
 */
export function reflectionRoutes(files: DescFile[]) {
  const index = indexFiles(files);
  return (router: ConnectRouter) =>
    router.service(ServerReflection, {
      async *serverReflectionInfo(requests: AsyncIterable<ServerReflectionRequest>) {
        for await (const req of requests) yield answer(index, req);
      },
    });
}

interface Index {
  /** Files by their path, e.g. svc/v1/stamp.proto, with every dependency. */
  byName: Map<string, DescFile>;
  symbols: Registry;
  serviceNames: string[];
}

/** The files and all they import, transitively, by path. */
function closure(files: DescFile[]): Map<string, DescFile> {
  const byName = new Map<string, DescFile>();
  const visit = (f: DescFile) => {
    if (byName.has(f.proto.name)) return;
    byName.set(f.proto.name, f);
    for (const dep of f.dependencies) visit(dep);
  };
  for (const f of files) visit(f);
  return byName;
}

function indexFiles(files: DescFile[]): Index {
  const byName = closure(files);
  return {
    byName,
    symbols: createRegistry(...byName.values()),
    serviceNames: files.flatMap((f) => f.services.map((s) => s.typeName)),
  };
}

function answer(index: Index, req: ServerReflectionRequest): ServerReflectionResponse {
  const base = { validHost: req.host, originalRequest: req };
  const request = req.messageRequest;
  switch (request.case) {
    case "listServices":
      return create(ServerReflectionResponseSchema, {
        ...base,
        messageResponse: {
          case: "listServicesResponse",
          value: { service: index.serviceNames.map((name) => ({ name })) },
        },
      });
    case "fileByFilename":
      return withDependencies(base, index.byName.get(request.value), `file "${request.value}"`);
    case "fileContainingSymbol":
      return withDependencies(base, fileOfSymbol(index.symbols, request.value), `symbol "${request.value}"`);
    default:
      return error(base, Code.Unimplemented, `${request.case ?? "empty request"} is not supported`);
  }
}

function fileOfSymbol(registry: Registry, symbol: string): DescFile | undefined {
  const desc = registry.get(symbol);
  if (desc) return desc.file;
  // A method's full name is <service>.<method>; the registry indexes the service.
  const service = registry.getService(symbol.slice(0, symbol.lastIndexOf(".")));
  return service?.methods.some((m) => `${service.typeName}.${m.name}` === symbol) ? service.file : undefined;
}

type Base = Pick<ServerReflectionResponse, "validHost" | "originalRequest">;

/** The file and its transitive dependencies, each serialized as a FileDescriptorProto. */
function withDependencies(base: Base, file: DescFile | undefined, what: string): ServerReflectionResponse {
  if (!file) return error(base, Code.NotFound, `${what} not found`);
  const fileDescriptorProto = [...closure([file]).values()].map((f) =>
    toBinary(FileDescriptorProtoSchema, f.proto),
  );
  return create(ServerReflectionResponseSchema, {
    ...base,
    messageResponse: { case: "fileDescriptorResponse", value: { fileDescriptorProto } },
  });
}

function error(base: Base, code: Code, message: string): ServerReflectionResponse {
  return create(ServerReflectionResponseSchema, {
    ...base,
    messageResponse: { case: "errorResponse", value: { errorCode: code, errorMessage: message } },
  });
}
