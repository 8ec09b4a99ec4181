// What every command knows of a resolved target: where its three interfaces live, and the key
// with the name of the variable it came from. The conformance suite and the fuzzer extend these.

/** Where a target's interfaces live: §4.1 queue, §4.2 REST templates, §4.3 GraphQL pods. */
export interface TargetAddresses {
  /** Origin (plus optional prefix) of the queue interface; paths go `/v2/{endpointId}/...`. */
  readonly queueUrl: string;
  /** REST base (paths `/v1/templates`); undefined: the template interface is not tested. */
  readonly restUrl?: string | undefined;
  /** GraphQL address; undefined: the pod interface is not tested. */
  readonly graphqlUrl?: string | undefined;
}

/** The API key (§5), and the environment variable it was read from: reports and curl lines name the variable, never the key. */
export interface TargetKey {
  readonly apiKey: string;
  readonly apiKeyEnv: string;
}
