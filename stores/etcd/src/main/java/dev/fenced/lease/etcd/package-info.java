/** {@link dev.fenced.lease.etcd.EtcdLeaseStore}: fenced leases kept in etcd. */
@NullMarked
package dev.fenced.lease.etcd;

import org.jspecify.annotations.NullMarked;
