// Scale-out gauges in /metrics (docs/cluster.md): role, the seq this process answers from, and a
// replica's lag behind the journal in commands and milliseconds. Read at scrape time.

import client from 'prom-client';
import type { Metrics } from '../observability/metrics.ts';

export interface ClusterView {
  mode: string;
  seq: number;
  lagSeq: number;
  lagMs: number;
  epoch: number;
  forwarded: number;
  forwardFailures: number;
}

export function registerClusterMetrics(metrics: Metrics, node: ClusterView): void {
  const registers = [metrics.registry];
  new client.Gauge({
    name: 'tickbook_cluster_leader',
    help: '1 while this process is the leader (holds the writer lock), else 0',
    registers,
    collect() {
      this.set(node.mode === 'leader' ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'tickbook_cluster_up',
    help: '1 while this process leads or follows; 0 while it is down (store lost) or starting',
    registers,
    collect() {
      this.set(node.mode === 'leader' || node.mode === 'replica' ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'tickbook_cluster_seq',
    help: 'Journal seq of the state this process answers from',
    registers,
    collect() {
      this.set(node.seq);
    },
  });
  new client.Gauge({
    name: 'tickbook_cluster_epoch',
    help: 'Fencing epoch of the current leader as this process knows it',
    registers,
    collect() {
      this.set(node.epoch);
    },
  });
  new client.Gauge({
    name: 'tickbook_replica_lag_seq',
    help: 'Journaled commands this replica has not applied yet (0 on the leader)',
    registers,
    collect() {
      this.set(node.lagSeq);
    },
  });
  new client.Gauge({
    name: 'tickbook_replica_lag_ms',
    help: 'Age of the oldest journal doorbell this replica has not applied yet, ms (0 on the leader)',
    registers,
    collect() {
      this.set(node.lagMs);
    },
  });
  new client.Gauge({
    name: 'tickbook_cluster_forwarded_total',
    help: 'Commands this replica forwarded to the leader, and forwards that failed',
    labelNames: ['outcome'] as const,
    registers,
    collect() {
      this.labels('ok').set(node.forwarded);
      this.labels('failed').set(node.forwardFailures);
    },
  });
}
