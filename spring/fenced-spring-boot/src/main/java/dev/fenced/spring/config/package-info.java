/**
 * The {@code fenced.*} settings of a Boot application ({@link dev.fenced.spring.config.FencedSettings}) and the
 * start-up failure a bad one raises ({@link dev.fenced.spring.config.FencedConfigurationException}).
 */
@NullMarked
package dev.fenced.spring.config;

import org.jspecify.annotations.NullMarked;
