import type { DocumentNode, ExecutionArgs } from 'graphql';

/**
 * A value worked out once for each operation of a document, kept as long as the document is (Yoga's
 * parse cache and the REST table hand the same one back). `work` gives undefined for what is not to
 * be remembered (an operation name the document lacks: such names are as many as clients send), and
 * `otherwise` is then the answer.
 */
export function memoPerOperation<Value>(work: (args: ExecutionArgs) => Value | undefined, otherwise: Value): (args: ExecutionArgs) => Value {
  const values = new WeakMap<DocumentNode, Map<string | null, Value>>();
  return (args) => {
    let byOperation = values.get(args.document);
    if (!byOperation) values.set(args.document, (byOperation = new Map()));
    const operationName = args.operationName ?? null;
    if (byOperation.has(operationName)) return byOperation.get(operationName) as Value;
    const value = work(args);
    if (value === undefined) return otherwise;
    byOperation.set(operationName, value);
    return value;
  };
}
