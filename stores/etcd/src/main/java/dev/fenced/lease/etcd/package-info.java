/** {@link dev.fenced.lease.etcd.EtcdLeaseStore}: fenced leases kept in etcd. */
package dev.fenced.lease.etcd;
