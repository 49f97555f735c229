import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

const protoRoot = new URL("../../specs/proto/", import.meta.url).pathname;

type Method = (...args: unknown[]) => unknown;
/** A dynamically built grpc-js client: methods are looked up by their proto names. */
export type GrpcJsClient = grpc.Client & { [method: string]: Method };

/**
 * A client of an independent gRPC implementation (@grpc/grpc-js) built from specs/proto directly,
 * so tests prove the server interoperates with clients that never saw our generated code.
 */
export function grpcJsClient(file: string, service: string, port: number): GrpcJsClient {
  const definition = protoLoader.loadSync(file, {
    includeDirs: [protoRoot],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
  });
  const root: grpc.GrpcObject = grpc.loadPackageDefinition(definition);
  const Ctor = service
    .split(".")
    .reduce<unknown>((node, part) => (node as grpc.GrpcObject)[part], root) as grpc.ServiceClientConstructor;
  return new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as GrpcJsClient;
}

/** Calls a unary method of a grpc-js client as a promise. */
export function unary<Res>(
  client: GrpcJsClient,
  method: string,
  req: object,
  metadata = new grpc.Metadata(),
) {
  return new Promise<Res>((resolve, reject) => {
    client[method]!(req, metadata, (err: grpc.ServiceError | null, res: Res) =>
      err ? reject(err) : resolve(res),
    );
  });
}
