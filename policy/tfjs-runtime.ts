/**
 * TF.js as this package runs it, imported by the modules that bring tensors in (policy/backend.ts's
 * `selectBackend`, policy/transformer/params.ts's weights). The package depends on
 * `@tensorflow/tfjs-core` and the backends it uses rather than the full `@tensorflow/tfjs`
 * (issue 35: 286 MB of an app's install, for layers, converter, data and webgl it never loads).
 * The full package did two things on import that tfjs-core's Node entry does not, so they are done
 * here, once:
 *  - tfjs-core's gradients are registered (./tfjs-gradients.js, scripts/build-tfjs-gradients.mjs
 *    says why that file is a bundle), without which `tf.variableGrads` fails on the first op;
 *  - the pure-JS `cpu` backend is registered, so tensors work before any backend is chosen and
 *    `selectBackend` keeps its last fallback.
 * The chained tensor methods (`x.reshape(…)`) are not registered: the code calls `tf.reshape(x, …)`.
 */
import './tfjs-gradients.js';
import '@tensorflow/tfjs-backend-cpu';
