/**
 * fenced for Spring Boot: the auto-configuration ({@link dev.fenced.spring.FencedAutoConfiguration}) fences the
 * application's DataSource and runs {@link dev.fenced.spring.WithLease} methods under their lease. Settings are bound
 * from {@code fenced.*} ({@link dev.fenced.spring.config.FencedSettings}); fenced's refusals reach Spring's
 * {@code DataAccessException} hierarchy as the types in {@link dev.fenced.spring.dao}.
 */
@NullMarked
package dev.fenced.spring;

import org.jspecify.annotations.NullMarked;
